package tools

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath/clientpathtest"
)

// workspaceOf is the rule with the tree's home as the one root.
func workspaceOf(f clientpathtest.Tree) clientpath.Workspace {
	return clientpath.Workspace{Roots: []string{f.Home}, Private: []string{f.Config, f.Cache}}
}

// askServer serves the real engine over a fake CLI that answers in plain text, with the folder rule w.
func askServer(t *testing.T, w clientpath.Workspace) (*server.MCPServer, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.NewLocal(t, geminitest.ScenarioPlain)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), ExtraEnv: fake.Env()})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newServer(engine, Options{Version: "test", Workspace: func() clientpath.Workspace { return w }}), fake
}

// TestAskWorkingDirectoryOverHTTP: over Streamable HTTP, the home dir, ~/.ssh, /, the config dir and a link to it
// are each refused before any CLI starts, and so is every folder while GEMINI_WORKSPACE_ROOTS is not set; a folder
// under a root reaches the CLI with its links resolved.
func TestAskWorkingDirectoryOverHTTP(t *testing.T) {
	t.Parallel()
	f := clientpathtest.NewTree(t)
	w := workspaceOf(f)
	w.Roots = append(w.Roots, string(filepath.Separator)) // so that "/" is refused for what it holds
	s, fake := askServer(t, w)
	c := connectHTTP(t, s)
	for _, dir := range []string{f.Home, f.SSH, string(filepath.Separator), f.Config, f.ToConf} {
		res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "Summarize @.env", "workingDirectory": dir}, nil)
		e, _ := decodeBody(t, res)["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || e["code"] != string(backend.CodeInvalidArgument) ||
			!strings.HasPrefix(msg, "invalid arguments for ask: workingDirectory ") {
			t.Errorf("%s: got %s, want INVALID_ARGUMENT", dir, resultText(t, res))
		}
	}
	if n := len(fake.Started()); n != 0 {
		t.Fatalf("%d CLIs started for refused calls, want none", n)
	}

	res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "Explain @main.go", "workingDirectory": f.ToProj}, nil)
	if calls := fake.Calls(); res.IsError || len(calls) != 1 || !slices.Contains(calls[0].Args, f.Project) {
		t.Fatalf("got %s, calls %+v; want the project handed to the CLI, its link resolved", resultText(t, res), calls)
	}

	unset, fake := askServer(t, clientpath.Workspace{Private: w.Private})
	res = call(context.Background(), t, connectHTTP(t, unset), "ask", map[string]any{"prompt": "p", "workingDirectory": f.Project}, nil)
	if !res.IsError || !strings.Contains(resultText(t, res), "set GEMINI_WORKSPACE_ROOTS to the folders") || len(fake.Started()) != 0 {
		t.Errorf("without GEMINI_WORKSPACE_ROOTS: got %s, want a refusal before the CLI starts, saying how to set it",
			resultText(t, res))
	}
}

// TestAskWorkingDirectoryOverStdio: over stdio the user's own client chooses any folder, as it names it; no roots
// are needed.
func TestAskWorkingDirectoryOverStdio(t *testing.T) {
	t.Parallel()
	f := clientpathtest.NewTree(t)
	s, fake := askServer(t, clientpath.Workspace{Private: []string{f.Config}})
	c := connectStdio(t, s)
	for _, dir := range []string{f.SSH, f.ToConf} {
		res := call(context.Background(), t, c, "ask", map[string]any{"prompt": "p", "workingDirectory": dir}, nil)
		if calls := fake.Calls(); res.IsError || len(calls) == 0 || !slices.Contains(calls[len(calls)-1].Args, dir) {
			t.Errorf("%s: got %s, want the folder handed to the CLI as named", dir, resultText(t, res))
		}
	}
}
