package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogin: the CLI's own sign-in is a Google login's cached credentials, an auth type selected in its settings,
// or an API key in its .env file (which it loads); a .env without a key, or with an empty one, is none.
func TestLogin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, file, content, want string
	}{
		{"none", "", "", ""},
		{"google login", "oauth_creds.json", "{}", "Google login found in "},
		{"auth type", "settings.json", `{"security":{"auth":{"selectedType":"oauth-personal"}}}`, `auth type "oauth-personal" selected in `},
		{"key in .env", ".env", "# mine\nexport GEMINI_API_KEY=\"AIza-key\"\n", "GEMINI_API_KEY in "},
		{"google key in .env", ".env", "GOOGLE_API_KEY=AIza-key\n", "GOOGLE_API_KEY in "},
		{"empty key in .env", ".env", "GEMINI_API_KEY=\nOTHER=1\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if tt.file != "" {
				dir := filepath.Join(home, ".gemini")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := Login(home)
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) || strings.Contains(got, "AIza") {
				t.Errorf("Login = %q, want %q… (never the key)", got, tt.want)
			}
		})
	}
}
