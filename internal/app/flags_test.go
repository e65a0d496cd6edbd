package app

import (
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
			f := newServerFlags("test", "", io.Discard)
			if _, done := f.parse(tt.args, "test", io.Discard); done {
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
