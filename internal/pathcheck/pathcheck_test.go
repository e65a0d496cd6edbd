package pathcheck

import (
	"path/filepath"
	"testing"
)

func TestIsShareOrDevice(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		`\\evil.example\share\x`: true,
		`//evil.example/share/x`: true,
		`\/evil.example\share`:   true,
		`\\?\C:\Users\me`:        true,
		`\\?\UNC\evil\share`:     true,
		`\\.\pipe\x`:             true,
		`\??\C:\x`:               true,
		`C:\Users\me\src`:        false,
		`C:/Users/me/src`:        false,
		`\Users\me`:              false,
		`relative\x`:             false,
		`/home/me/src`:           false,
		`?`:                      false,
		``:                       false,
	} {
		if got := IsShareOrDevice(path); got != want {
			t.Errorf("%s: got %v, want %v", path, got, want)
		}
	}
}

func TestWithinAndInside(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(string(filepath.Separator), "home", "me", "work")
	tests := []struct {
		path           string
		within, inside bool
	}{
		{dir, true, false},
		{filepath.Join(dir, "a", "b"), true, true},
		{filepath.Join(dir, "..a"), true, true}, // a name that starts with .., not a parent
		{filepath.Dir(dir), false, false},
		{dir + "2", false, false}, // a sibling whose name starts like dir
		{filepath.Join(dir, "..", "other"), false, false},
	}
	for _, tt := range tests {
		if got := Within(dir, tt.path); got != tt.within {
			t.Errorf("Within(%q, %q) = %v, want %v", dir, tt.path, got, tt.within)
		}
		if got := Inside(dir, tt.path); got != tt.inside {
			t.Errorf("Inside(%q, %q) = %v, want %v", dir, tt.path, got, tt.inside)
		}
	}
}
