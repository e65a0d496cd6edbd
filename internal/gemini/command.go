package gemini

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/npm"
)

// ErrCLINotFound means no Gemini CLI could be found or executed.
var ErrCLINotFound = errors.New("gemini CLI not found")

// Command is how to start the CLI, resolved once: the executable and the
// arguments that come before ours, e.g. {"/usr/bin/npx", ["-y", "@google/gemini-cli@0.61.0"]}.
type Command struct {
	Path string
	Args []string
}

// String renders the command for logs and status pages, quoting words that
// need it.
func (c Command) String() string {
	words := make([]string, 0, 1+len(c.Args))
	for _, w := range append([]string{c.Path}, c.Args...) {
		if w == "" || strings.ContainsAny(w, " \t\n\"'\\") {
			w = strconv.Quote(w)
		}
		words = append(words, w)
	}
	return strings.Join(words, " ")
}

// Resolve decides how to start the CLI. cliPath (GEMINI_CLI_PATH) wins when
// set: it must name an executable file (a bare name is looked up on PATH).
// Otherwise `gemini` on PATH. npx is a way to fetch the CLI, not an installed
// one: only when npx is true (GEMINI_CLI_NPX=on) does a missing gemini fall
// back to `npx -y` with the version npm/package.json pins (npm.GeminiCLI),
// which the tests ran; otherwise the error says npx could fetch it.
// lookPath is exec.LookPath in production; nil means that. Every failure
// wraps ErrCLINotFound.
func Resolve(cliPath string, npx bool, lookPath func(string) (string, error)) (Command, error) {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if cliPath != "" {
		path, err := checkExecutable(cliPath, lookPath)
		if err != nil {
			return Command{}, fmt.Errorf("%w: GEMINI_CLI_PATH %q: %v", ErrCLINotFound, cliPath, err)
		}
		return Command{Path: path}, nil
	}
	if path, err := lookPath("gemini"); err == nil {
		return Command{Path: path}, nil
	}
	path, err := lookPath("npx")
	switch {
	case err != nil:
		return Command{}, fmt.Errorf("%w: neither gemini nor npx is on PATH", ErrCLINotFound)
	case !npx:
		return Command{}, fmt.Errorf("%w: gemini is not on PATH; npx is, and could fetch the CLI at each start "+
			"if GEMINI_CLI_NPX were on", ErrCLINotFound)
	}
	return Command{Path: path, Args: []string{"-y", npm.GeminiCLI}}, nil
}

// Fetched reports whether c fetches the CLI through npx rather than starting an installed one: its first run
// downloads the CLI, which takes a minute or more.
func (c Command) Fetched() bool { return len(c.Args) > 0 && c.Args[0] == "-y" }

// checkExecutable returns the absolute path of an executable file, so that
// the runner's working directory cannot change what a relative path means.
func checkExecutable(path string, lookPath func(string) (string, error)) (string, error) {
	if !strings.ContainsAny(path, `/\`) {
		return lookPath(path)
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if info.IsDir() {
		return "", errors.New("is a directory")
	}
	if runtime.GOOS != "windows" && info.Mode().Perm()&0o111 == 0 {
		return "", errors.New("is not executable")
	}
	return filepath.Abs(path)
}
