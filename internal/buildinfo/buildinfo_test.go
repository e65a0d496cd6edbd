package buildinfo

import "testing"

func TestVersion(t *testing.T) {
	if got := Version("1.2.3"); got != "1.2.3" {
		t.Errorf("stamped: %q, want 1.2.3", got)
	}
	if got := Version("dev"); got != "dev" { // a test binary is built in its own tree: "(devel)"
		t.Errorf("unstamped in the source tree: %q, want dev", got)
	}
	for module, want := range map[string]string{"v1.4.0": "1.4.0", "v0.0.0-20261124050000-abcdef123456": "0.0.0-20261124050000-abcdef123456",
		"(devel)": "dev", "": "dev"} {
		if got := fromModule(module, "dev"); got != want {
			t.Errorf("go install of %q: %q, want %q", module, got, want)
		}
	}
}
