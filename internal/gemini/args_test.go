package gemini

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

func TestBuildArgs(t *testing.T) {
	t.Parallel()
	npx := Command{Path: "/usr/bin/npx", Args: make([]string, 2, 10)}
	copy(npx.Args, []string{"-y", "@google/gemini-cli"})
	tests := []struct {
		name  string
		cmd   Command
		model string
		want  []string
	}{
		{"no model", Command{Path: "/usr/bin/gemini"}, "", []string{"-o", "stream-json"}},
		{"model", Command{Path: "/usr/bin/gemini"}, "gemini-2.5-pro", []string{"-o", "stream-json", "-m", "gemini-2.5-pro"}},
		{"npx", npx, "", []string{"-y", "@google/gemini-cli", "-o", "stream-json"}},
		{"npx with model", npx, "gemini-2.5-flash", []string{"-y", "@google/gemini-cli", "-o", "stream-json", "-m", "gemini-2.5-flash"}},
	}
	if got, want := buildArgs(Command{Path: "gemini"}, "", []string{"/src/a", "/src/b c"}),
		[]string{"-o", "stream-json", "--include-directories", "/src/a", "--include-directories", "/src/b c"}; !slices.Equal(got, want) {
		t.Errorf("folders: got %q, want %q", got, want)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := buildArgs(tt.cmd, tt.model, nil); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	buildArgs(npx, "x", nil)
	if got := npx.Args[:cap(npx.Args)][2]; got != "" {
		t.Errorf("buildArgs wrote into the command's Args: got %q after them, want nothing", got)
	}
}

func TestBuildEnv(t *testing.T) {
	t.Parallel()
	fixed := []string{"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true", "TMPDIR=/priv", "TMP=/priv", "TEMP=/priv"}
	tests := []struct {
		name  string
		base  []string
		extra []string
		want  []string
	}{
		{
			name: "fixed variables added",
			base: []string{"PATH=/bin", "HOME=/home/u"},
			want: append([]string{"PATH=/bin", "HOME=/home/u"}, fixed...),
		},
		{
			name: "firecrawl-breaking variables removed from the parent",
			base: []string{"PATH=/bin", "HTTP_STREAMABLE_SERVER=true", "SSE_LOCAL=true", "CLOUD_SERVICE=true", "PORT=3000"},
			want: append([]string{"PATH=/bin"}, fixed...),
		},
		{
			name: "an editor's variables removed",
			base: []string{"PATH=/bin", "GEMINI_CLI_IDE_SERVER_PORT=4711", "GEMINI_CLI_IDE_WORKSPACE_PATH=/src", "GEMINI_CLI_IDE_AUTH_TOKEN=t"},
			want: append([]string{"PATH=/bin"}, fixed...),
		},
		{
			name: "the server's own token removed",
			base: []string{"PATH=/bin", "MCP_AUTH_TOKEN=tok-123456"},
			want: append([]string{"PATH=/bin"}, fixed...),
		},
		{
			name:  "and from extra",
			base:  []string{"PATH=/bin"},
			extra: []string{"PORT=8080", "FIRECRAWL_API_KEY=fc-1"},
			want:  append([]string{"PATH=/bin", "FIRECRAWL_API_KEY=fc-1"}, fixed...),
		},
		{
			name:  "extra overrides the parent in place",
			base:  []string{"FIRECRAWL_API_URL=http://a", "PATH=/bin"},
			extra: []string{"FIRECRAWL_API_URL=http://b"},
			want:  append([]string{"FIRECRAWL_API_URL=http://b", "PATH=/bin"}, fixed...),
		},
		{
			name:  "fixed variables override both",
			base:  []string{"TMPDIR=/tmp", "GEMINI_CLI_TRUST_WORKSPACE=false"},
			extra: []string{"GEMINI_CLI_NO_RELAUNCH=false"},
			want:  []string{"TMPDIR=/priv", "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true", "TMP=/priv", "TEMP=/priv"},
		},
		{
			name: "later duplicate in the parent wins",
			base: []string{"A=1", "A=2"},
			want: append([]string{"A=2"}, fixed...),
		},
		{
			name: "windows drive entries are distinct keys",
			base: []string{"=C:=C:\\work", "=D:=D:\\", "EMPTY="},
			want: append([]string{"=C:=C:\\work", "=D:=D:\\", "EMPTY="}, fixed...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := buildEnv(tt.base, tt.extra, "/priv"); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestGuardPrompt: an @ reference reaches the CLI only when it names an existing regular file inside the run's
// folders whose path is plain, and then as its absolute path with its links resolved; every other @ is escaped, so
// that the CLI reads no file for it: a folder's too, since the CLI would follow the links it holds.
func TestGuardPrompt(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir()) // macOS: /var is a link to /private/var
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "dir"), filepath.Join(ws, "sub"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"notes.txt", "my file 1.txt", "my file (1).txt", "caf\u00e9.txt", "a&b.txt", "ends."} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		filepath.Join(ws, "out"):        outside,                          // a folder elsewhere
		filepath.Join(ws, "leak"):       filepath.Join(outside, "secret"), // a file elsewhere
		filepath.Join(ws, "sub", "cfg"): outside,                          // inside a folder that is named
		filepath.Join(ws, "alias.txt"):  filepath.Join(ws, "notes.txt"),   // a file of the folder
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{ws}
	windows := runtime.GOOS == "windows"
	ref := func(name string) string { // how guardPrompt writes the reference to ws/name
		q, ok := quoteRef(filepath.Join(ws, filepath.FromSlash(name)), windows)
		if !ok {
			t.Fatalf("cannot write %s", name)
		}
		return "@" + q
	}
	type test struct {
		name, prompt, want string
		dirs               []string
	}
	tests := []test{
		{"no @", "plain text", "plain text", dirs},
		{"a file", "Summarize @notes.txt please", "Summarize " + ref("notes.txt") + " please", dirs},
		{"a file at the end of a sentence", "Read @notes.txt.", "Read " + ref("notes.txt") + ".", dirs},
		{"a file in parentheses", "(see @notes.txt)", "(see " + ref("notes.txt") + ")", dirs},
		{"a link to a file of the folder, resolved", "@alias.txt", ref("notes.txt"), dirs},
		{"an absolute path inside", ref("notes.txt"), ref("notes.txt"), dirs},
		{"a folder", "@dir, then", `\@dir, then`, dirs},
		{"a folder holding a link out", "@sub", `\@sub`, dirs},
		{"the folder itself, absolute", "@" + ws, `\@` + ws, dirs},
		{"no folders given", "@notes.txt", `\@notes.txt`, nil},
		{"an absolute path outside", "Summarize @/etc/passwd", `Summarize \@/etc/passwd`, dirs},
		{"the config dir's keys", "Summarize @.env", `Summarize \@.env`, dirs},
		{"up and out", "@../outside/secret", `\@../outside/secret`, dirs},
		{"a link out", "@out/secret", `\@out/secret`, dirs},
		{"a link to a file out", "@leak", `\@leak`, dirs},
		{"a missing file", "@missing.txt", `\@missing.txt`, dirs},
		{"a name outside ASCII", "@caf\u00e9.txt", "\\@caf\u00e9.txt", dirs},
		{"a name with &", "@a&b.txt", `\@a&b.txt`, dirs},
		{"an e-mail address", "write to a@b.example", `write to a\@b.example`, dirs},
		{"a handle", "tweets by @gopher", `tweets by \@gopher`, dirs},
		{"already escaped", `\@notes.txt`, `\@notes.txt`, dirs},
		{"a reference hidden in another", "@x@/etc/passwd", `\@x\@/etc/passwd`, dirs},
		{"a good one holding a bad one", "@notes.txt@/etc/passwd", `\@notes.txt\@/etc/passwd`, dirs},
		{"quotes", `@"a b"@/etc/passwd`, `\@"a b"\@/etc/passwd`, dirs},
		{"lone @", "@ and @. and @", "@ and @. and @", dirs},
		{"several", "@notes.txt and @/etc/hosts", ref("notes.txt") + ` and \@/etc/hosts`, dirs},
	}
	if !windows { // a backslash escapes a character of the name only outside Windows
		tests = append(tests,
			test{"an escaped name", `@my\ file\ 1.txt`, ref("my file 1.txt"), dirs},
			test{"an escaped name that is not plain", `@my\ file\ \(1\).txt`, `\@my\ file\ \(1\).txt`, dirs},
			test{"a name ending in a dot", `@ends\.`, `\@ends\.`, dirs})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := guardPrompt(tt.prompt, tt.dirs, windows); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

// TestGuardPromptWindowsShares: read as Windows paths, a network share or a device is escaped before anything
// looks at it (Windows would connect to the share and send the user's NTLM credentials).
func TestGuardPromptWindowsShares(t *testing.T) {
	t.Parallel()
	dirs := []string{t.TempDir()}
	for _, path := range []string{`\\evil.example\share\x`, `//evil.example/share/x`, `\\?\C:\x`, `\\.\pipe\x`, `"\\evil.example\share\a b"`} {
		prompt := "Read @" + path + " now"
		if got, want := guardPrompt(prompt, dirs, true), `Read \@`+path+" now"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if _, ok := refFile(unescapeRef(path, true), dirs, true); ok {
			t.Errorf("%s: kept", path)
		}
	}
}

// TestQuoteRef: a plain path written as a reference reads back, as the CLI reads it, as the same path, and the
// reference ends where it should; any other path is not written.
func TestQuoteRef(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		windows bool
		written []string
		refused []string
	}{
		{false, []string{"/a/b.go", "/a b/c-d_e.txt", "/x/.env", "/a. b/c", "/A/Z09"},
			[]string{"/caf\u00e9", "/a(b)", `/a\b`, "/ends.", "/a\nb", `/q"uote`, "/a@b", "/a;b", "/tab\there", "/a,b", "/~x", "/a:b", "/a'b"}},
		{true, []string{`C:\a\b.go`, `C:\a b\c.txt`, `c:\x\.env`},
			[]string{`\\evil\share\x`, `\\?\C:\x`, `C:\a:b`, `C:\ends.`, `relative\x`, `C:x`, `C:\a(b)`, `C:\RUNNER~1`, `C:\q"uote`, `D:\`, `C:\a\`}},
	} {
		for _, path := range tt.written {
			ref, ok := quoteRef(path, tt.windows)
			if !ok {
				t.Errorf("%q (windows %v): cannot be written", path, tt.windows)
				continue
			}
			for _, tail := range []string{"", " more", ". Next", ", then"} {
				prompt := "@" + ref + tail
				end := refEnd(prompt, 1)
				if end != 1+len(ref) || unescapeRef(prompt[1:end], tt.windows) != path {
					t.Errorf("%q (windows %v): %q reads as %q", path, tt.windows, prompt, unescapeRef(prompt[1:end], tt.windows))
				}
			}
		}
		for _, path := range tt.refused {
			if ref, ok := quoteRef(path, tt.windows); ok {
				t.Errorf("%q (windows %v): written as %q, want it refused", path, tt.windows, ref)
			}
		}
	}
}
