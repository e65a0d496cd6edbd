package config

import (
	"maps"
	"strings"
	"testing"
)

func TestParseDotenv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{"empty", "", map[string]string{}},
		{"comments and blanks", "# a comment\n\n   \n  # indented comment\nA=1\n", map[string]string{"A": "1"}},
		{"no trailing newline", "A=1", map[string]string{"A": "1"}},
		{"crlf and bom", "\uFEFFA=1\r\nB=2\r\n", map[string]string{"A": "1", "B": "2"}},
		{"spaces around", "  A  =  some value  \n", map[string]string{"A": "some value"}},
		{"empty value", "A=\nB=   \n", map[string]string{"A": "", "B": ""}},
		{"export", "export A=1\nexport\tB=2\nexport=3\n", map[string]string{"A": "1", "B": "2", "export": "3"}},
		{"equals in value", "URL=https://x.example/?a=b&c=d\n", map[string]string{"URL": "https://x.example/?a=b&c=d"}},
		{"inline comment", "A=1 # one\nB=2\t# two\nC=a#b\nD= # only a comment\nE=#hash\n",
			map[string]string{"A": "1", "B": "2", "C": "a#b", "D": "", "E": "#hash"}},
		{"single quoted", `A='it is # not a comment' # but this is` + "\nB='C:\\dir\\n'\n",
			map[string]string{"A": "it is # not a comment", "B": `C:\dir\n`}},
		{"double quoted", `A="line1\nline2 \"q\" back\\slash \x"` + "\n" + `B="  keep  "` + "\n",
			map[string]string{"A": "line1\nline2 \"q\" back\\slash \\x", "B": "  keep  "}},
		{"empty quotes", `A=""` + "\nB=''\n", map[string]string{"A": "", "B": ""}},
		{"later wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"long line", "P=" + strings.Repeat("x", 200_000) + "\n", map[string]string{"P": strings.Repeat("x", 200_000)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseDotenv(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseDotenvErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"no equals", "A=1\n# c\nFIRECRAWL_API_KEY fc-secret\n", "line 3: expected KEY=VALUE"},
		{"empty name", "=1\n", "line 1: variable name"},
		{"bad name", "A-B=1\n", "line 1: variable name"},
		{"digit first", "1A=1\n", "line 1: variable name"},
		{"unterminated double", "A=1\nB=\"open\n", `line 2: B: missing closing " quote`},
		{"unterminated single", "A='open\n", "line 1: A: missing closing ' quote"},
		{"text after quote", "A=\"x\" y\n", "line 1: A: unexpected text after the closing quote"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseDotenv(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got %q, want it to start with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "fc-secret") {
				t.Errorf("error quotes the line: %q", err)
			}
		})
	}
}
