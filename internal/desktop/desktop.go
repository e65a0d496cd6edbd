// Package desktop does what a desktop app asks of the operating system: open a URL, folder or file with the
// user's default program, put text on the clipboard, start at login, and show notifications that open a page.
// Commands are chosen by pure functions of the platform, so every platform's choice is tested anywhere.
package desktop

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Open opens target (a URL, a folder or a file) with the user's default program and returns without waiting
// for it. Nothing reaches this process's stdout.
func Open(target string) error {
	name, args := openCommand(runtime.GOOS, target)
	cmd := exec.Command(name, args...) // Stdin, Stdout, Stderr: the null device
	noConsole(cmd)
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return fmt.Errorf("open %s: %s is not installed", target, name)
		}
		return fmt.Errorf("open %s: %w", target, err)
	}
	go cmd.Wait() //nolint:errcheck // reap it; xdg-open and friends exit once the program is started
	return nil
}

func openCommand(goos, target string) (string, []string) {
	switch goos {
	case "darwin":
		return "open", []string{target}
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", target}
	default:
		return "xdg-open", []string{target}
	}
}

// CopyText puts text on the clipboard with the platform's clipboard program.
func CopyText(text string) error {
	candidates := clipboardCommands(runtime.GOOS, os.Getenv)
	for _, argv := range candidates {
		path, err := exec.LookPath(argv[0])
		if err != nil {
			continue
		}
		cmd := exec.Command(path, argv[1:]...)
		cmd.Stdin = strings.NewReader(text)
		noConsole(cmd)
		// Stdout and Stderr stay the null device: xclip leaves a child serving the selection that would keep a
		// pipe open, and Run would wait for it.
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("copy to the clipboard with %s: %w", argv[0], err)
		}
		return nil
	}
	names := make([]string, len(candidates))
	for i, argv := range candidates {
		names[i] = argv[0]
	}
	return fmt.Errorf("copy to the clipboard: no clipboard program found (install one of %s)", strings.Join(names, ", "))
}

func clipboardCommands(goos string, getenv func(string) string) [][]string {
	switch goos {
	case "darwin":
		return [][]string{{"pbcopy"}}
	case "windows":
		return [][]string{{"clip"}}
	}
	x11 := [][]string{{"xclip", "-selection", "clipboard"}, {"xsel", "--clipboard", "--input"}}
	if getenv("WAYLAND_DISPLAY") != "" {
		return append([][]string{{"wl-copy"}}, x11...)
	}
	return append(x11, []string{"wl-copy"})
}
