//go:build dist

package packaging

import (
	"debug/pe"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The tray that make build builds for Windows is a GUI program: no console window opens with it, at login either.
// The test reads the build command from the Makefile itself (make -n), so that it checks what users run. It
// cross-compiles the tray, so it runs with make dist's checks rather than in make test.
func TestWindowsBuildIsAGUIProgram(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	plan := exec.Command("make", "--no-print-directory", "-n", "build", "VERSION=test")
	plan.Dir = ".."
	plan.Env = append(os.Environ(), "GOOS=windows")
	out, err := plan.Output()
	if err != nil {
		t.Fatalf("make -n build: %v", err)
	}
	var flags string
	for line := range strings.Lines(string(out)) {
		if strings.Contains(line, "./cmd/tray") {
			_, rest, _ := strings.Cut(line, "-ldflags '")
			flags, _, _ = strings.Cut(rest, "'")
		}
	}
	for _, exe := range []string{"bin/gemini-search-mcp.exe ", "bin/gemini-search-tray.exe "} { // the tray looks for the first
		if !strings.Contains(string(out), exe) {
			t.Errorf("make build for Windows does not write %s:\n%s", exe, out)
		}
	}
	if !strings.Contains(flags, "-H=windowsgui") {
		t.Fatalf("the tray's build for Windows has ldflags %q, without -H=windowsgui:\n%s", flags, out)
	}
	exe := filepath.Join(t.TempDir(), "gemini-search-tray.exe")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", flags, "-o", exe, "../cmd/tray")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build for Windows: %v\n%s", err, out)
	}
	f, err := pe.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	header, ok := f.OptionalHeader.(*pe.OptionalHeader64)
	if !ok {
		t.Fatalf("not a 64-bit PE image: %T", f.OptionalHeader)
	}
	if header.Subsystem != pe.IMAGE_SUBSYSTEM_WINDOWS_GUI {
		t.Errorf("the Windows tray's subsystem is %d, want the GUI one (%d)", header.Subsystem, pe.IMAGE_SUBSYSTEM_WINDOWS_GUI)
	}
}
