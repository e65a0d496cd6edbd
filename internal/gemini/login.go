package gemini

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Login describes the Gemini CLI's own sign-in found in home's .gemini folder (where `gemini` keeps it): the cached
// credentials of a Google login, an auth type selected in the user settings, or an API key in the .env file there,
// which the CLI loads at its start. It is "" when there is none: the CLI can then only use an API key from its
// environment.
func Login(home string) string {
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
	if name := dotenvKey(filepath.Join(dir, ".env")); name != "" {
		return fmt.Sprintf("%s in %s", name, filepath.Join(dir, ".env"))
	}
	return ""
}

// dotenvKey is the variable of a Gemini API key that the .env file at path sets (GEMINI_API_KEY or
// GOOGLE_API_KEY, as the CLI reads them); "" for none.
func dotenvKey(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		name, value, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "export "), "=")
		name, value = strings.TrimSpace(name), strings.Trim(strings.TrimSpace(value), `"'`)
		if ok && (name == "GEMINI_API_KEY" || name == "GOOGLE_API_KEY") && value != "" {
			return name
		}
	}
	return ""
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
