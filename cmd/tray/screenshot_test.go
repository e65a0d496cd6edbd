//go:build unix

package main

// TestScreenshot draws the open tray menu for people to look at: `make screenshot` runs it with SCREENSHOT_DIR
// set, and it writes three pictures there: tray-running.png (a search running), tray-setup.png (a first run without
// the Gemini CLI: the setup problems and their fixes) and tray-recent.png (a finished search under Recent research). It
// needs Xvfb, an SNI tray host (gtk-sni-tray-standalone), xdotool and ImageMagick; without SCREENSHOT_DIR it is
// skipped.

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

func TestScreenshot(t *testing.T) {
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		t.Skip("set SCREENSHOT_DIR=folder to take screenshots of the menu (make screenshot)")
	}
	needBus(t)
	for _, prog := range []string{"Xvfb", "gtk-sni-tray-standalone", "xdotool", "import"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is needed: apt-get install xvfb haskell-gtk-sni-tray-utils xdotool imagemagick", prog)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("running", func(t *testing.T) {
		fake := geminitest.New(t, geminitest.ScenarioHang) // a search that keeps running while we look
		screenshot(t, filepath.Join(dir, "tray-running.png"), "Running searches (1)", trayOptions{fake: fake}, func(p *trayProc) {
			base, _ := p.waitRunning(t)
			searchAsync(t, base, "What changed in the Rust 2024 edition?")
			p.waitMenu(t, "the running search", func(root traytest.Item) bool { _, ok := root.Find("Running searches (1)"); return ok })
		})
	})
	t.Run("setup", func(t *testing.T) {
		screenshot(t, filepath.Join(dir, "tray-setup.png"), "Setup: 2 problems", trayOptions{dotenv: "GEMINI_BACKEND=cli\n"}, func(p *trayProc) {
			p.waitMenu(t, "the setup problems", func(root traytest.Item) bool { // no CLI, and no credentials
				it, ok := root.Find("Setup: 2 problems")
				return ok && it.Visible
			})
		})
	})
	t.Run("recent", func(t *testing.T) {
		fake := geminitest.New(t, geminitest.ScenarioOK)
		screenshot(t, filepath.Join(dir, "tray-recent.png"), "Recent research", trayOptions{fake: fake, signedIn: true}, func(p *trayProc) {
			base, _ := p.waitRunning(t)
			if res := <-searchAsync(t, base, "What changed in the Rust 2024 edition?"); res == nil || res.IsError {
				t.Fatalf("search failed: %+v", res)
			}
			p.waitMenu(t, "the finished search", func(root traytest.Item) bool {
				recent, _ := root.Find("Recent research")
				return len(recent.VisibleLabels()) == 3 && !strings.HasPrefix(recent.VisibleLabels()[0], "No research")
			})
		})
	})
}

// menuRow is the height of a menu row in gtk-sni-tray-standalone's menu, and menuTop the middle of its first row.
const menuRow, menuTop = 25, 48

// screenshot starts a tray with o on a display of its own with a tray host, has ready bring it into the state to
// show, opens its menu and the submenu of the item labelled open (above the first separator), and saves the screen
// to out.
func screenshot(t *testing.T, out, open string, o trayOptions, ready func(*trayProc)) {
	display := startX(t)
	env := append(traytest.Environ(), "DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+bus.Address, "NO_AT_BRIDGE=1")
	host := exec.Command("gtk-sni-tray-standalone", "--top", "--watcher", "--size", "32")
	host.Env = env
	background(t, host)
	time.Sleep(time.Second) // let the watcher take its bus name before the tray registers

	p := startTray(t, o)
	ready(p)
	root, err := p.menu.Layout()
	if err != nil {
		t.Fatal(err)
	}
	row := slices.Index(root.VisibleLabels(), open)
	if row < 0 || slices.Contains(root.VisibleLabels()[:row], "---") {
		t.Fatalf("no item %q above the first separator:\n%s", open, root)
	}
	time.Sleep(1500 * time.Millisecond) // the icon follows the state

	xdo := func(args ...string) {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, b)
		}
	}
	xdo("mousemove", "16", "16", "click", "1")
	time.Sleep(1500 * time.Millisecond)
	xdo("mousemove", "60", strconv.Itoa(menuTop+row*menuRow)) // over the item: its submenu opens
	time.Sleep(1500 * time.Millisecond)

	shot := exec.Command("import", "-window", "root", out)
	shot.Env = env
	if b, err := shot.CombinedOutput(); err != nil {
		t.Fatalf("import: %v %s", err, b)
	}
	xdo("key", "Escape")
	t.Logf("screenshot of the open menu: %s", out)
}

// startX starts Xvfb on a free display and returns it (":N").
func startX(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "1280x640x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{w}
	background(t, x)
	w.Close()
	line, err := bufio.NewReader(r).ReadString('\n')
	r.Close()
	if err != nil {
		t.Fatalf("Xvfb gave no display: %v", err)
	}
	return ":" + strings.TrimSpace(line)
}

// background starts cmd in its own process group and ends the group when the test ends.
func background(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}
