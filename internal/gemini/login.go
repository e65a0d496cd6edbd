package gemini

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Login describes the Gemini CLI's own sign-in found in home's .gemini folder (where `gemini` keeps it): the cached
// credentials of a Google login, or an auth type selected in the user settings. It is "" when there is none: the
// CLI can then only use an API key from its environment.
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
