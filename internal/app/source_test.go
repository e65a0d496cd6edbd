package app

import (
	"errors"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

func TestFlagsOverride(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		wantAddr  string
		wantSetBy map[string]string
	}{
		{"none", nil, "127.0.0.1:3000", map[string]string{}},
		{"--port", []string{"--port", "0"}, "127.0.0.1:0", map[string]string{"MCP_SERVER_PORT": "--port"}},
		{"--host and --port", []string{"--host", "::1", "--port", "4000"}, "[::1]:4000",
			map[string]string{"MCP_SERVER_HOST": "--host", "MCP_SERVER_PORT": "--port"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := NewFlags("test", "", io.Discard)
			if _, done := f.Parse(tt.args, "test", io.Discard); done {
				t.Fatalf("parse %q: done", tt.args)
			}
			cfg := config.Config{Host: "127.0.0.1", Port: 3000, Overridden: map[string]bool{"GEMINI_MODEL": true}}
			f.override(&cfg)
			if cfg.Addr() != tt.wantAddr {
				t.Errorf("got %s, want %s", cfg.Addr(), tt.wantAddr)
			}
			for name, flag := range tt.wantSetBy {
				if !cfg.Overridden[name] || cfg.SetBy[name] != flag {
					t.Errorf("%s: got overridden=%v set by %q, want overridden, set by %s", name, cfg.Overridden[name], cfg.SetBy[name], flag)
				}
			}
			if got := slices.Sorted(maps.Keys(cfg.SetBy)); len(got) != len(tt.wantSetBy) {
				t.Errorf("set by a flag: got %v, want %v", got, slices.Sorted(maps.Keys(tt.wantSetBy)))
			}
			if !cfg.Overridden["GEMINI_MODEL"] {
				t.Error("the environment's override of GEMINI_MODEL was lost")
			}
		})
	}
}

// TestSourceRefusesWhatTheAppWouldRefuse: a configuration that serves HTTP beyond loopback without a token is
// refused, wherever the host came from, unless the binary serves stdio only.
func TestSourceRefusesWhatTheAppWouldRefuse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		stdio   bool
		dotenv  string
		refused bool
	}{
		{"loopback", nil, nil, false, "", false},
		{"host from the environment", map[string]string{"MCP_SERVER_HOST": "10.1.2.3"}, nil, false, "", true},
		{"host from --host", nil, []string{"--host", "0.0.0.0"}, false, "", true},
		{"host from .env", nil, nil, false, "MCP_SERVER_HOST=10.1.2.3\n", true},
		{"host and token", map[string]string{"MCP_SERVER_HOST": "10.1.2.3", "MCP_AUTH_TOKEN": "a-token-of-16-chars"}, nil, false, "", false},
		{"stdio only", map[string]string{"MCP_SERVER_HOST": "10.1.2.3"}, nil, true, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{config.DirVar: t.TempDir()}
			maps.Copy(vars, tt.env)
			f := NewFlags("test", "", io.Discard)
			if _, done := f.Parse(tt.args, "test", io.Discard); done {
				t.Fatalf("parse %q: done", tt.args)
			}
			src := Source{Env: config.Env{Lookup: func(n string) (string, bool) { v, ok := vars[n]; return v, ok }}, Flags: f, Stdio: tt.stdio}
			_, err := src.LoadDotenv([]byte(tt.dotenv))
			if got := errors.Is(err, errExposed); got != tt.refused {
				t.Errorf("got %v, want refused %v", err, tt.refused)
			}
		})
	}
}
