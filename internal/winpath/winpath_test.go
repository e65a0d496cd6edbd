package winpath

import "testing"

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
