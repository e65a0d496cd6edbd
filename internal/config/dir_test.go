package config

import (
	"path/filepath"
	"testing"
)

// envMap returns a Lookup over m.
func envMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestDefaultDir(t *testing.T) {
	t.Parallel()
	cwd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		env  Env
		want string
	}{
		{"linux xdg", Env{GOOS: "linux", Home: "/home/u", XDGConfigHome: "/home/u/.cfg"},
			filepath.Join("/home/u/.cfg", "gemini-search-mcp")},
		{"linux no xdg", Env{GOOS: "linux", Home: "/home/u"},
			filepath.Join("/home/u", ".config", "gemini-search-mcp")},
		{"linux relative xdg is ignored", Env{GOOS: "linux", Home: "/home/u", XDGConfigHome: "cfg"},
			filepath.Join("/home/u", ".config", "gemini-search-mcp")},
		{"freebsd like linux", Env{GOOS: "freebsd", Home: "/home/u", XDGConfigHome: "/x"},
			filepath.Join("/x", "gemini-search-mcp")},
		{"linux no home", Env{GOOS: "linux"}, ""},
		{"darwin", Env{GOOS: "darwin", Home: "/Users/u", XDGConfigHome: "/ignored"},
			filepath.Join("/Users/u", "Library", "Application Support", "gemini-search-mcp")},
		{"darwin no home", Env{GOOS: "darwin"}, ""},
		{"windows appdata", Env{GOOS: "windows", Home: `C:\Users\u`, AppData: `C:\Users\u\AppData\Roaming`,
			XDGConfigHome: `C:\Users\u\AppData\Local`},
			filepath.Join(`C:\Users\u\AppData\Roaming`, "gemini-search-mcp")},
		{"windows no appdata", Env{GOOS: "windows", Home: `C:\Users\u`},
			filepath.Join(`C:\Users\u`, "AppData", "Roaming", "gemini-search-mcp")},
		{"windows nothing", Env{GOOS: "windows"}, ""},
		{"override", Env{GOOS: "linux", Home: "/home/u",
			Lookup: envMap(map[string]string{DirVar: " /srv/gsm/ "})}, "/srv/gsm"},
		{"override relative", Env{GOOS: "darwin", Home: "/Users/u",
			Lookup: envMap(map[string]string{DirVar: "conf"})}, filepath.Join(cwd, "conf")},
		{"override home", Env{GOOS: "linux", Home: "/home/u",
			Lookup: envMap(map[string]string{DirVar: "~/gsm"})}, filepath.Join("/home/u", "gsm")},
		{"override blank is unset", Env{GOOS: "linux", Home: "/home/u",
			Lookup: envMap(map[string]string{DirVar: "  "})}, filepath.Join("/home/u", ".config", "gemini-search-mcp")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := defaultDir(tt.env); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestOSEnv(t *testing.T) {
	t.Parallel()
	e := OSEnv()
	if e.Lookup == nil || e.GOOS == "" {
		t.Fatalf("got %+v, want Lookup and GOOS set", e)
	}
	if e.Home != "" && defaultDir(e) == "" {
		t.Errorf("defaultDir(OSEnv()) is empty although Home is %q", e.Home)
	}
}
