package gemini

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/npm"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	exe := filepath.Join(dir, "gemini")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	on := func(found ...string) func(string) (string, error) {
		return func(name string) (string, error) {
			if slices.Contains(found, name) {
				return "/opt/bin/" + name, nil
			}
			return "", errors.New("not found")
		}
	}
	tests := []struct {
		name     string
		cliPath  string
		lookPath func(string) (string, error)
		npx      bool // GEMINI_CLI_NPX=on
		want     Command
		wantErr  string // substring; the error must wrap ErrCLINotFound
		unixOnly bool
	}{
		{name: "cli path", cliPath: exe, lookPath: on("gemini", "npx"), want: Command{Path: exe}},
		{name: "cli path as a name on PATH", cliPath: "gemini-nightly", lookPath: on("gemini-nightly"), want: Command{Path: "/opt/bin/gemini-nightly"}},
		{name: "missing cli path", cliPath: filepath.Join(dir, "nope"), lookPath: on("gemini"), wantErr: filepath.Join(dir, "nope")},
		{name: "cli path not executable", cliPath: plain, lookPath: on("gemini"), wantErr: "not executable", unixOnly: true},
		{name: "cli path is a directory", cliPath: dir, lookPath: on("gemini"), wantErr: "directory"},
		{name: "gemini on PATH", lookPath: on("gemini", "npx"), want: Command{Path: "/opt/bin/gemini"}},
		{name: "npx fallback, pinned", lookPath: on("npx"), npx: true, want: Command{Path: "/opt/bin/npx", Args: []string{"-y", npm.GeminiCLI}}},
		{name: "npx is no installed CLI", lookPath: on("npx"), wantErr: "gemini is not on PATH; npx is, and could fetch the CLI"},
		{name: "gemini on PATH wins over npx", lookPath: on("gemini", "npx"), npx: true, want: Command{Path: "/opt/bin/gemini"}},
		{name: "nothing", lookPath: on(), wantErr: "neither gemini nor npx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.unixOnly && runtime.GOOS == "windows" {
				t.Skip("no executable bit on Windows")
			}
			got, err := Resolve(tt.cliPath, tt.npx, tt.lookPath)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrCLINotFound) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got error %v, want one wrapping ErrCLINotFound containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got.Path != tt.want.Path || !slices.Equal(got.Args, tt.want.Args) || got.Fetched() != (len(tt.want.Args) > 0) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCommandString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd  Command
		want string
	}{
		{Command{Path: "/usr/bin/gemini"}, "/usr/bin/gemini"},
		{Command{Path: "/usr/bin/npx", Args: []string{"-y", "@google/gemini-cli"}}, "/usr/bin/npx -y @google/gemini-cli"},
		{Command{Path: `C:\Program Files\nodejs\npx.cmd`, Args: []string{"-y"}}, `"C:\\Program Files\\nodejs\\npx.cmd" -y`},
	}
	for _, tt := range tests {
		if got := tt.cmd.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}
