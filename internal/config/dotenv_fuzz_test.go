package config

import (
	"bytes"
	"maps"
	"strings"
	"testing"
)

// FuzzUpdateDotenv applies two assignments to an arbitrary .env file. The writer loses nothing: every line that
// does not set one of the two variables stays, in order, and a file that parsed still parses, to exactly its
// variables with the assignments applied, whatever the values hold (quotes, #, backslashes, line breaks). Each
// variable set keeps one line, with the "export " prefix its line had, and applying the same assignments again
// changes nothing.
func FuzzUpdateDotenv(f *testing.F) {
	f.Add("# my settings\nOTHER=x # note\n\nGEMINI_MODEL=old\n", "GEMINI_MODEL", "gemini-2.5-pro", "FIRECRAWL_API_KEY", "fc-secret")
	f.Add("export A=1\nB=x\nA=2\n", "A", "it's\nhere", "B", "")
	f.Add("\uFEFFA=1\r\nB='q # r'\r\n", "A", "", "C", `C:\Users\me "quoted"`)
	f.Fuzz(func(t *testing.T, src, name1, value1, name2, value2 string) {
		if !validName(name1) || !validName(name2) || name1 == name2 {
			t.Skip("the callers set distinct variables with valid names")
		}
		set := []Assignment{{name1, value1}, {name2, value2}}
		out := UpdateDotenv([]byte(src), set)

		if again := UpdateDotenv(out, set); !bytes.Equal(again, out) {
			t.Errorf("applied twice: got %q, want %q", again, out)
		}
		if strings.HasPrefix(src, "\uFEFF") != bytes.HasPrefix(out, []byte("\uFEFF")) {
			t.Errorf("byte order mark: got %q from %q", out, src)
		}

		assigned := func(line string) bool {
			key, _, ok, err := parseDotenvLine(line)
			return err == nil && ok && (key == name1 || key == name2)
		}
		kept := dotenvLines(string(out))
		for _, line := range dotenvLines(src) {
			if assigned(line) {
				continue
			}
			i := 0
			for i < len(kept) && kept[i] != line {
				i++
			}
			if i == len(kept) {
				t.Fatalf("line %q lost, or out of order: got %q from %q", line, out, src)
			}
			kept = kept[i+1:]
		}

		before, err := parseDotenv(strings.NewReader(src))
		if err != nil {
			return // a file that does not parse is kept as it is; the lines above are all there is to check
		}
		want := maps.Clone(before)
		for _, a := range set {
			if a.Value == "" {
				delete(want, a.Name)
			} else {
				want[a.Name] = a.Value
			}
		}
		after, err := parseDotenv(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("the result does not parse: %v\n%q", err, out)
		}
		if !maps.Equal(after, want) {
			t.Errorf("got %q, want %q\nfrom %q", after, want, out)
		}
		for _, a := range set {
			if got, want := exportedLines(string(out), a.Name), exportedLines(src, a.Name); a.Value != "" && len(want) > 0 &&
				(len(got) != 1 || got[0] != want[len(want)-1]) {
				t.Errorf("%s: lines exported %v, want one line, exported %v as its last one was", a.Name, got, want[len(want)-1])
			}
		}
	})
}

// dotenvLines splits a .env file into its lines without their endings (the writer chooses those) and without the
// byte order mark.
func dotenvLines(s string) []string {
	s = strings.TrimPrefix(s, "\uFEFF")
	if s == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, line := range lines {
		lines[i] = strings.TrimRight(line, "\r")
	}
	return lines
}

// exportedLines says, for each line of s that sets name, whether it has an "export " prefix.
func exportedLines(s, name string) []bool {
	var exported []bool
	for _, line := range dotenvLines(s) {
		if key, _, ok, err := parseDotenvLine(line); err == nil && ok && key == name {
			_, export := cutExport(strings.TrimSpace(line))
			exported = append(exported, export)
		}
	}
	return exported
}
