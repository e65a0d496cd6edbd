package clientpath

import (
	"strings"
	"testing"
)

// TestAgentFolderRefusesSharesAndDevices: over HTTP a network share or a device path is refused as written, before
// anything opens it (Windows would connect to the share and send the user's NTLM credentials), even under a root
// that is one.
func TestAgentFolderRefusesSharesAndDevices(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{`\\evil.example\share\x`, `//evil.example/share/x`, `\\?\C:\Users`, `\\?\UNC\evil.example\share`,
		`\\.\pipe\x`} {
		w := Workspace{Roots: []string{t.TempDir(), `\\evil.example\share`, `\\?\C:\`}}
		if got, err := AgentFolder(dir, false, w); err == nil || !strings.Contains(err.Error(), "names a network share or a device") {
			t.Errorf("%s: got %q, %v; want it refused as a share or device", dir, got, err)
		}
	}
}
