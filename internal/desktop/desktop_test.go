package desktop

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestOpenCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		goos, target string
		want         []string
	}{
		{"linux", "http://127.0.0.1:3000/settings?token=x", []string{"xdg-open", "http://127.0.0.1:3000/settings?token=x"}},
		{"freebsd", "/tmp/a b", []string{"xdg-open", "/tmp/a b"}},
		{"darwin", "/Users/me/Library", []string{"open", "/Users/me/Library"}},
		{"windows", `C:\x\tray.log`, []string{"rundll32", "url.dll,FileProtocolHandler", `C:\x\tray.log`}},
	}
	for _, tt := range tests {
		t.Run(tt.goos, func(t *testing.T) {
			t.Parallel()
			name, args := openCommand(tt.goos, tt.target)
			if got := append([]string{name}, args...); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClipboardCommands(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name  string
		goos  string
		env   map[string]string
		first string
	}{
		{"x11", "linux", nil, "xclip"},
		{"wayland", "linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, "wl-copy"},
		{"macos", "darwin", nil, "pbcopy"},
		{"windows", "windows", nil, "clip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := clipboardCommands(tt.goos, env(tt.env))[0][0]; got != tt.first {
				t.Errorf("got %q, want %q", got, tt.first)
			}
		})
	}
}

func TestDesktopExec(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"/usr/local/bin/gemini-search-tray": "/usr/local/bin/gemini-search-tray",
		"/home/me/My Apps/tray":             `"/home/me/My Apps/tray"`,
		`/opt/$x/"q"/tray`:                  `"/opt/\\$x/\\"q\\"/tray"`,
		"/opt/100%/tray":                    "/opt/100%%/tray",
	}
	for in, want := range tests {
		if got := desktopExec(in); got != want {
			t.Errorf("desktopExec(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFileAutostart(t *testing.T) {
	t.Parallel()
	for name, a := range map[string]func(dir string) Autostart{
		"xdg":         func(dir string) Autostart { return xdgAutostart(dir, "/opt/my tray/gemini-search-tray") },
		"launchagent": func(dir string) Autostart { return launchAgent(dir, "/opt/my tray/gemini-search-tray") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			auto := a(dir)
			if on, err := auto.Enabled(); on || err != nil {
				t.Fatalf("Enabled before = %v, %v; want false", on, err)
			}
			if err := auto.SetEnabled(true); err != nil {
				t.Fatal(err)
			}
			if on, err := auto.Enabled(); !on || err != nil {
				t.Fatalf("Enabled after = %v, %v; want true", on, err)
			}
			path := auto.(fileAutostart).path
			data, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(data), "/opt/my tray/gemini-search-tray") {
				t.Errorf("%s holds %q (%v), want the executable", path, data, err)
			}
			if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
				t.Errorf("entry at %s, outside %s", path, dir)
			}
			if err := auto.SetEnabled(false); err != nil {
				t.Fatal(err)
			}
			if err := auto.SetEnabled(false); err != nil {
				t.Errorf("turning off twice: %v", err)
			}
			if on, _ := auto.Enabled(); on {
				t.Error("still enabled after SetEnabled(false)")
			}
		})
	}
}
