//go:build unix

package main

// TestScreenshot draws the open tray menu for people to look at: `make screenshot` runs it with SCREENSHOT_OUT
// set. It needs Xvfb, an SNI tray host (gtk-sni-tray-standalone), xdotool and ImageMagick; without
// SCREENSHOT_OUT it is skipped.

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tray/traytest"
)

func TestScreenshot(t *testing.T) {
	out := os.Getenv("SCREENSHOT_OUT")
	if out == "" {
		t.Skip("set SCREENSHOT_OUT=file.png to take a screenshot of the menu (make screenshot)")
	}
	needBus(t)
	for _, prog := range []string{"Xvfb", "gtk-sni-tray-standalone", "xdotool", "import"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Fatalf("%s is needed: apt-get install xvfb haskell-gtk-sni-tray-utils xdotool imagemagick", prog)
		}
	}
	display := startX(t)
	env := append(traytest.Environ(), "DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+bus.Address, "NO_AT_BRIDGE=1")
	host := exec.Command("gtk-sni-tray-standalone", "--top", "--watcher", "--size", "32")
	host.Env = env
	background(t, host)
	time.Sleep(time.Second) // let the watcher take its bus name before the tray registers

	fake := geminitest.New(t, geminitest.ScenarioHang) // a search that keeps running while we look
	p := startTray(t, trayOptions{fake: fake})
	base, _ := p.waitRunning(t)
	searchAsync(t, base, "What changed in the Rust 2024 edition?")
	p.waitMenu(t, "the running search", func(root traytest.Item) bool { _, ok := root.Find("Running searches (1)"); return ok })
	time.Sleep(1500 * time.Millisecond) // the icon turns "researching"

	xdo := func(args ...string) {
		cmd := exec.Command("xdotool", args...)
		cmd.Env = env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, b)
		}
	}
	xdo("mousemove", "16", "16", "click", "1")
	time.Sleep(1500 * time.Millisecond)
	xdo("mousemove", "60", "72") // over "Running searches (1)": its submenu opens
	time.Sleep(1500 * time.Millisecond)

	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
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
	x := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", "900x640x24", "-nolisten", "tcp")
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
