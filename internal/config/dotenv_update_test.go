package config

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestUpdateDotenv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		set  []Assignment
		want string
	}{
		{"empty file gets the new lines", "", []Assignment{{"A", "1"}, {"B", "2"}}, "A=1\nB=2\n"},
		{"comments and unknown lines stay",
			"# my settings\nOTHER=x # note\n\nGEMINI_MODEL=old\n",
			[]Assignment{{"GEMINI_MODEL", "gemini-2.5-pro"}},
			"# my settings\nOTHER=x # note\n\nGEMINI_MODEL=gemini-2.5-pro\n"},
		{"same value keeps its quoting", "GEMINI_MODEL='gemini-2.5-pro' # chosen\n",
			[]Assignment{{"GEMINI_MODEL", "gemini-2.5-pro"}}, "GEMINI_MODEL='gemini-2.5-pro' # chosen\n"},
		{"export prefix stays", "export A=1\n", []Assignment{{"A", "2"}}, "export A=2\n"},
		{"empty value removes every line", "A=1\n# keep\nA=2\n", []Assignment{{"A", ""}}, "# keep\n"},
		{"duplicates collapse onto the last", "A=1\nB=x\nA=2\n", []Assignment{{"A", "3"}}, "B=x\nA=3\n"},
		{"missing final newline", "A=1", []Assignment{{"B", "2"}}, "A=1\nB=2\n"},
		{"malformed line kept", "not a line\nA=1\n", []Assignment{{"A", "2"}}, "not a line\nA=2\n"},
		{"crlf kept", "# c\r\nA=1\r\n", []Assignment{{"A", "2"}, {"B", "3"}}, "# c\r\nA=2\r\nB=3\r\n"},
		{"value with blanks is quoted", "", []Assignment{{"P", "a b # c"}}, "P='a b # c'\n"},
		{"value with a quote and a newline", "", []Assignment{{"P", "it's\nhere"}}, "P=\"it's\\nhere\"\n"},
		{"removing an absent variable changes nothing", "A=1\n", []Assignment{{"B", ""}}, "A=1\n"},
		{"byte order mark kept, its line found", "\uFEFFA=1\nB=2\n", []Assignment{{"A", ""}, {"B", "3"}}, "\uFEFFB=3\n"},
		{"a name starting with export is no prefix", "exportA=1\n", []Assignment{{"exportA", "2"}}, "exportA=2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := string(UpdateDotenv([]byte(tt.src), tt.set))
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if _, err := parseDotenv(bytes.NewReader([]byte(got))); err != nil && tt.name != "malformed line kept" {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}

func TestQuoteDotenvRoundTrip(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"plain", "a b", "#x", "x #y", `C:\Users\me`, `"q"`, "it's", "l1\nl2", "tab\there", "a=b", `both ' and "`, "\f", "no-break\u00a0"} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			vars, err := parseDotenv(bytes.NewReader(UpdateDotenv(nil, []Assignment{{"K", v}})))
			if err != nil {
				t.Fatal(err)
			}
			if vars["K"] != v {
				t.Errorf("got %q, want %q", vars["K"], v)
			}
		})
	}
}

func TestWriteDotenv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, ".env")
	if err := os.WriteFile(path, []byte("OLD=1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteDotenv(path, []byte("NEW=2\n")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil || string(data) != "NEW=2\n" {
		t.Errorf("got %q (%v), want %q", data, err, "NEW=2\n")
	}
	if fi, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".env-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	if err := WriteDotenv(filepath.Join(dir, "missing", ".env"), nil); err == nil {
		t.Error("writing into a missing dir succeeded, want an error")
	}
}
