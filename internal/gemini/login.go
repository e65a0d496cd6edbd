package gemini

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Login describes the Gemini CLI's own sign-in, as the CLI started in workdir finds it: the cached credentials of
// a Google login or an auth type selected in home's .gemini folder (where `gemini` keeps them), or a Gemini API key
// in the .env file the CLI loads at its start (envFile), unless that is workdir's own, the server's configuration,
// whose key the server gives the CLI itself. It is "" when there is none: the CLI can then only use an API key from
// its environment.
func Login(home, workdir string) string {
	if home == "" {
		return ""
	}
	dir := filepath.Join(home, ".gemini")
	if _, err := os.Stat(filepath.Join(dir, "oauth_creds.json")); err == nil {
		return "Google login found in " + dir
	}
	if t := selectedAuthType(filepath.Join(dir, "settings.json")); t != "" {
		return fmt.Sprintf("auth type %q selected in %s", t, filepath.Join(dir, "settings.json"))
	}
	if f := envFile(home, workdir); f != "" && filepath.Dir(f) != workdir && filepath.Dir(filepath.Dir(f)) != workdir {
		if dotenvKey(f) {
			return "GEMINI_API_KEY in " + f
		}
	}
	return ""
}

// envFile is the .env file the Gemini CLI started in workdir loads, as the CLI looks for it: .gemini/.env, then
// .env, in workdir and each folder above it; past the root, home's .gemini/.env, then home's .env. "" for none.
func envFile(home, workdir string) string {
	for dir := filepath.Clean(workdir); ; dir = filepath.Dir(dir) {
		for _, f := range []string{filepath.Join(dir, ".gemini", ".env"), filepath.Join(dir, ".env")} {
			if _, err := os.Stat(f); err == nil {
				return f
			}
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	for _, f := range []string{filepath.Join(home, ".gemini", ".env"), filepath.Join(home, ".env")} {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	return ""
}

// dotenvKey reports whether the .env file at path sets GEMINI_API_KEY, the key the CLI reads (GOOGLE_API_KEY
// is Vertex AI's), to a value.
func dotenvKey(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "export "), "=")
		value = strings.TrimSpace(value)
		if ok && strings.TrimSpace(name) == "GEMINI_API_KEY" && strings.Trim(value, `"'`) != "" && !strings.HasPrefix(value, "#") {
			return true
		}
	}
	return false
}

func selectedAuthType(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var s struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
	}
	_ = json.Unmarshal(b, &s)
	return s.Security.Auth.SelectedType
}
