package gemini

import (
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
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
