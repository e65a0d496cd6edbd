package gemini

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/pathcheck"
)

// droppedEnv are variables removed from the CLI's environment.
var droppedEnv = []string{
	// The CLI passes these on to its MCP servers, where they turn firecrawl-mcp into an HTTP server instead of a
	// stdio one.
	"HTTP_STREAMABLE_SERVER", "SSE_LOCAL", "CLOUD_SERVICE", "PORT",
	// The server's own bearer token: the agent has no use for it, and what the agent can read, a page it visits
	// can ask it to repeat.
	"MCP_AUTH_TOKEN",
}

// droppedEnvPrefix starts the variables an editor sets for the CLI it runs in its terminal (its port, token and
// folders): a server started from such a terminal must not hand them to the agent, which would add the editor's
// folders to its workspace.
const droppedEnvPrefix = "GEMINI_CLI_IDE_"

// buildArgs returns the CLI's arguments after the executable: the command's
// own arguments, stream-json output, a model only when one was asked for
// (no -m lets the CLI pick its own default), and the folders to include. The
// prompt goes to stdin.
func buildArgs(cmd Command, model string, dirs []string) []string {
	args := slices.Concat(cmd.Args, []string{"-o", "stream-json"})
	if model != "" {
		args = append(args, "-m", model)
	}
	for _, dir := range dirs {
		args = append(args, "--include-directories", dir)
	}
	return args
}

// buildEnv returns the CLI's environment: base (the parent's), then extra,
// then the variables the runner always sets: trust the workspace (the config
// folder holding .gemini/settings.json), skip the CLI's self-relaunch (so
// SIGTERM works), and a private temp folder for the CLI's error reports.
// A later entry replaces an earlier one with the same key; droppedEnv keys
// are removed wherever they come from.
func buildEnv(base, extra []string, tmpDir string) []string {
	fixed := []string{
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"GEMINI_CLI_NO_RELAUNCH=true",
		"TMPDIR=" + tmpDir,
		"TMP=" + tmpDir,  // Node's os.tmpdir() also reads TMP and TEMP,
		"TEMP=" + tmpDir, // and only those on Windows.
	}
	env := make([]string, 0, len(base)+len(extra)+len(fixed))
	index := make(map[string]int)
	for _, kv := range slices.Concat(base, extra, fixed) {
		key := credential.EnvKey(kv)
		if slices.Contains(droppedEnv, key) || strings.HasPrefix(key, droppedEnvPrefix) {
			continue
		}
		if i, ok := index[key]; ok {
			env[i] = kv
			continue
		}
		index[key] = len(env)
		env = append(env, kv)
	}
	return env
}

// cliPrompt is the prompt the CLI is given for prompt in a run given dirs: guardPrompt, on this platform.
func cliPrompt(prompt string, dirs []string) string {
	return guardPrompt(prompt, dirs, runtime.GOOS == "windows")
}

// guardPrompt returns the prompt the CLI is given in place of prompt, whose @ references can only name files in
// dirs (the run's --include-directories). The CLI replaces each @path of its prompt with the contents of that file
// or folder, looked up in its whole workspace: its working folder (the config dir, with the .env file), every
// included folder, and its own temp folder, which keeps the transcripts of earlier runs. A reference is kept only
// when it names a regular file inside one of dirs (refFile) whose path, links resolved, quoteRef can write; it is
// rewritten as that absolute path. Every other @ gets a backslash, after which the CLI passes it on as plain text:
// a folder's too, since the CLI would read every file under it and follow the links there. windows selects the
// CLI's Windows reading of a path (no backslash escapes; quotes around a path with spaces).
//
// The scan follows the CLI's own (0.61.0, parseAllAtCommands): an @ not preceded by a backslash starts a
// reference, which runs to the first space, tab, line break or one of ,;!?()[]{}, or to a dot that ends the text
// or comes before white space; a backslash takes the next character into the reference, and "…" the text up to
// the next quote. Another version of the CLI may read a reference otherwise, which is why quoteRef writes only
// plain paths.
func guardPrompt(prompt string, dirs []string, windows bool) string {
	if !strings.Contains(prompt, "@") {
		return prompt
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(prompt); i++ {
		if prompt[i] != '@' || (i > 0 && prompt[i-1] == '\\') {
			continue
		}
		end := refEnd(prompt, i+1)
		if end == i+1 { // a lone @ is no reference
			continue
		}
		b.WriteString(prompt[last:i])
		if path, ok := refFile(unescapeRef(prompt[i+1:end], windows), dirs, windows); ok {
			if ref, ok := quoteRef(path, windows); ok {
				b.WriteString("@" + ref)
				last, i = end, end-1
				continue
			}
		}
		// Escaped, the @ reaches the model as text; the scan goes on inside the reference, as the CLI's does.
		b.WriteString(`\@`)
		last = i + 1
	}
	b.WriteString(prompt[last:])
	return b.String()
}

// refEnd is where the @ reference that starts at prompt[start] ends.
func refEnd(prompt string, start int) int {
	k := start
	for k < len(prompt) {
		c := prompt[k]
		switch {
		case c == '"' && strings.IndexByte(prompt[k+1:], '"') >= 0:
			k += strings.IndexByte(prompt[k+1:], '"') + 2
		case c == '\\' && k+1 < len(prompt) && prompt[k+1] != '\n' && prompt[k+1] != '\r':
			k += 2
		case c == '.' && (k+1 == len(prompt) || strings.IndexByte(" \t\n\r", prompt[k+1]) >= 0):
			return k
		case strings.IndexByte(" \t\n\r,;!?()[]{}", c) >= 0:
			return k
		default:
			k++
		}
	}
	return k
}

// unescapeRef is the path an @ reference names, read as the CLI reads it: on Windows without the quotes around
// it, elsewhere with each backslash-escaped character as itself.
func unescapeRef(ref string, windows bool) string {
	if windows {
		if len(ref) >= 2 && ref[0] == '"' && ref[len(ref)-1] == '"' {
			return ref[1 : len(ref)-1]
		}
		return ref
	}
	var b strings.Builder
	for k := 0; k < len(ref); k++ {
		if ref[k] == '\\' && k+1 < len(ref) && ref[k+1] != '\n' && ref[k+1] != '\r' {
			k++
		}
		b.WriteByte(ref[k])
	}
	return b.String()
}

// refFile is the file an @ reference to path names, if the CLI may read it. path, absolute or relative to one of
// dirs, made clean, must first lie inside that dir as written (or as resolved), so that nothing is opened for a path elsewhere (on
// Windows not a network share or a device either: looking at \\server\share sends the user's credentials there;
// on macOS /net/host mounts it). Then, its links resolved, it must be a regular file inside the dir resolved; the
// resolved path is returned.
func refFile(path string, dirs []string, windows bool) (string, bool) {
	if windows && pathcheck.IsShareOrDevice(path) {
		return "", false
	}
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		candidate := filepath.Clean(path)
		if !filepath.IsAbs(path) {
			candidate = filepath.Join(dir, path)
		}
		realDir, err := filepath.EvalSymlinks(dir) // the run's folder, not the client's path
		if err != nil || !pathcheck.Within(dir, candidate) && !pathcheck.Within(realDir, candidate) {
			continue
		}
		real, err := filepath.EvalSymlinks(candidate)
		if err != nil || !pathcheck.Within(realDir, real) {
			continue
		}
		if info, err := os.Stat(real); err == nil && info.Mode().IsRegular() {
			return real, true
		}
	}
	return "", false
}

// quoteRef writes path, absolute, as an @ reference the CLI reads back as path, or reports that it will not. It
// writes only a plain path, which a CLI whose parser differs from 0.61.0's cannot split or read otherwise: ASCII
// letters, digits, / . _ - and spaces (on Windows also \ after the drive, as C:\…), not ending in . or \. A space
// gets a backslash, or on Windows the path goes in quotes, as the CLI's own escapePath writes them. The file of
// any other path is just not inlined.
func quoteRef(path string, windows bool) (string, bool) {
	body := path
	if windows {
		if len(path) < 3 || !isASCIILetter(path[0]) || path[1:3] != `:\` {
			return "", false
		}
		body = path[2:]
	}
	// 0.61.0 ends a reference before a final dot, and takes the character after a final backslash into it.
	if strings.HasSuffix(body, ".") || strings.HasSuffix(body, `\`) {
		return "", false
	}
	for k := 0; k < len(body); k++ {
		c := body[k]
		if !isASCIILetter(c) && !('0' <= c && c <= '9') && strings.IndexByte("/._- ", c) < 0 && !(windows && c == '\\') {
			return "", false
		}
	}
	switch {
	case !strings.Contains(path, " "):
		return path, true
	case windows:
		return `"` + path + `"`, true
	default:
		return strings.ReplaceAll(path, " ", `\ `), true
	}
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
