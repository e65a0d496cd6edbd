package doctor

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

func TestSetup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := config.Config{Dir: dir, CLIPath: filepath.Join(dir, "no-gemini")}
	problems := Problems(Setup(missing, config.Env{Home: t.TempDir()}))
	if len(problems) != 2 || problems[0].Name != "Gemini CLI" || !strings.Contains(problems[0].Detail, "npm install -g @google/gemini-cli") ||
		problems[1].Name != "Auth" || !problems[1].Hint {
		t.Errorf("got %+v, want the missing CLI (saying how to install it) and the missing credential (a hint)", problems)
	}

	found := config.Config{Dir: dir, CLIPath: os.Args[0]}
	env := config.Env{Lookup: func(n string) (string, bool) {
		return map[string]string{"GEMINI_API_KEY": "k"}[n], n == "GEMINI_API_KEY"
	}}
	if problems := Problems(Setup(found, env)); len(problems) != 0 {
		t.Errorf("got %+v, want no problem with a CLI and a key", problems)
	}
}

func TestPrint(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	healthy := Print(&out, []Check{{Name: "Config dir", OK: true, Detail: "/cfg"}, {Name: "Auth", Hint: true, Detail: "none"}})
	if !healthy || !strings.Contains(out.String(), "✓ Config dir") || !strings.Contains(out.String(), "! Auth") {
		t.Errorf("a hint must not fail the checklist: healthy=%v\n%s", healthy, out.String())
	}
	out.Reset()
	if Print(&out, []Check{{Name: "Gemini CLI", Detail: "not found"}}) || !strings.Contains(out.String(), "✗ Gemini CLI") {
		t.Errorf("a failed check must fail the checklist:\n%s", out.String())
	}
}
