package packaging

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Stage lays out the folder the bundle of version for p is packed from (mcpb pack): manifest.json, icon.png,
// LICENSE and the server binary at EntryPoint(p), executable.
func Stage(dir, version string, p Platform, binary, license string) error {
	manifest, err := Manifest(version, p)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "server"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "icon.png"), Icon(), 0o644); err != nil {
		return err
	}
	if err := copyFile(license, filepath.Join(dir, "LICENSE"), 0o644); err != nil {
		return err
	}
	return copyFile(binary, filepath.Join(dir, filepath.FromSlash(EntryPoint(p))), 0o755)
}

func copyFile(from, to string, mode os.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(to, mode) // whatever the umask took away
}
