package desktop

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Autostart turns starting the tray at login on and off.
type Autostart interface {
	Enabled() (bool, error)
	SetEnabled(on bool) error
}

// appID names the autostart entry on every platform.
const appID = "gemini-search-tray"

// fileAutostart is an autostart entry that is one file: a .desktop file in the XDG autostart folder (Linux and
// other Unix desktops) or a LaunchAgent property list (macOS).
type fileAutostart struct {
	path    string
	content []byte
}

func (f fileAutostart) Enabled() (bool, error) {
	_, err := os.Stat(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("check %s: %w", f.path, err)
	}
	return true, nil
}

func (f fileAutostart) SetEnabled(on bool) error {
	if !on {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("turn off start at login: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
		return fmt.Errorf("turn on start at login: %w", err)
	}
	if err := os.WriteFile(f.path, f.content, 0o644); err != nil {
		return fmt.Errorf("turn on start at login: %w", err)
	}
	return nil
}

// xdgAutostart is the freedesktop.org autostart entry for exe in configHome/autostart (configHome is
// $XDG_CONFIG_HOME, ~/.config by default).
func xdgAutostart(configHome, exe string) Autostart {
	return fileAutostart{
		path: filepath.Join(configHome, "autostart", appID+".desktop"),
		content: []byte("[Desktop Entry]\n" +
			"Type=Application\n" +
			"Name=Gemini Search MCP\n" +
			"Comment=Web research for MCP clients through a Gemini CLI agent\n" +
			"Exec=" + desktopExec(exe) + "\n" +
			"Terminal=false\n" +
			"X-GNOME-Autostart-enabled=true\n"),
	}
}

// desktopExec quotes one program path for a .desktop file's Exec key: reserved characters force double quotes,
// inside which ", `, $ and \ are escaped; then the string value's own escaping doubles every backslash, and %
// is written %%.
func desktopExec(arg string) string {
	if strings.ContainsAny(arg, " \t\n\"'\\><~|&;$*?#()`") {
		arg = `"` + strings.NewReplacer(`"`, `\"`, "`", "\\`", `$`, `\$`, `\`, `\\`).Replace(arg) + `"`
	}
	return strings.NewReplacer(`\`, `\\`, `%`, `%%`).Replace(arg)
}

// launchAgent is the macOS login item for exe: ~/Library/LaunchAgents/<label>.plist, read by launchd at login.
func launchAgent(home, exe string) Autostart {
	label := "io.github.gemini-search-mcp.tray"
	return fileAutostart{
		path: filepath.Join(home, "Library", "LaunchAgents", label+".plist"),
		content: []byte(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + label + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + xmlEscape(exe) + `</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`),
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;").Replace(s)
}
