package config

import (
	"bufio"
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestEnvExample checks that the repository's .env.example documents exactly
// the variables Load reads, plus GEMINI_SEARCH_CONFIG_DIR: each set to its
// default, or commented out when it has none.
func TestEnvExample(t *testing.T) {
	t.Parallel()
	const path = "../../.env.example"
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	setting := regexp.MustCompile(`^(# )?([A-Z][A-Z0-9_]*)=(.*)$`)
	type entry struct {
		commented bool
		value     string
	}
	found := map[string]entry{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := setting.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if _, dup := found[m[2]]; dup {
			t.Errorf("%s appears twice", m[2])
		}
		found[m[2]] = entry{commented: m[1] != "", value: m[3]}
		order = append(order, m[2])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	want := []string{DirVar}
	for _, v := range EnvVars() {
		want = append(want, v.Name)
		got, ok := found[v.Name]
		switch {
		case !ok:
			continue // reported below
		case v.Default == "" && (!got.commented || got.value != ""):
			t.Errorf("%s: got %q, want it commented out and empty (no default)", v.Name, got.value)
		case v.Default != "" && (got.commented || got.value != v.Default):
			t.Errorf("%s: got %q (commented %v), want %s=%s", v.Name, got.value, got.commented, v.Name, v.Default)
		}
	}
	if e := found[DirVar]; !e.commented || e.value != "" {
		t.Errorf("%s: got %q, want it commented out and empty", DirVar, e.value)
	}
	if !slices.Equal(order, want) {
		t.Errorf("variables: got %v, want %v", order, want)
	}

	// The file must also load as a .env file, to the defaults.
	f2, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	vars, err := parseDotenv(f2)
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	for _, v := range EnvVars() {
		if vars[v.Name] != v.Default {
			t.Errorf("parsed %s: got %q, want %q", v.Name, vars[v.Name], v.Default)
		}
	}
}
