package gemini

import (
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
