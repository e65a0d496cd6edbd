package gemini

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLogin: the CLI's own sign-in is a Google login's cached credentials, an auth type selected in its settings,
// or a GEMINI_API_KEY in the .env file the CLI started in the server's folder loads: home's .gemini/.env only when
// no .env in that folder or above it comes first (the server's own .env there is its configuration, not the
// CLI's sign-in). A .env without a key, an empty or commented one, or Vertex's GOOGLE_API_KEY is none.
func TestLogin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		files map[string]string // relative to home; "config/work/" is the server's folder
		want  string
	}{
		{"none", nil, ""},
		{"google login", map[string]string{".gemini/oauth_creds.json": "{}"}, "Google login found in "},
		{"auth type", map[string]string{".gemini/settings.json": `{"security":{"auth":{"selectedType":"oauth-personal"}}}`},
			`auth type "oauth-personal" selected in `},
		{"key in ~/.gemini/.env", map[string]string{".gemini/.env": "# mine\nexport GEMINI_API_KEY=\"AIza-key\"\n"},
			"GEMINI_API_KEY in "},
		{"shadowed by the server's own .env", map[string]string{".gemini/.env": "GEMINI_API_KEY=AIza-key\n",
			"config/work/.env": "GEMINI_MODEL=pro\n"}, ""},
		{"shadowed by a .env above the server's folder", map[string]string{".gemini/.env": "GEMINI_API_KEY=AIza-key\n",
			"config/.env": "OTHER=1\n"}, ""},
		{"home's .gemini/.env before home's .env", map[string]string{".gemini/.env": "GEMINI_API_KEY=AIza-key\n",
			".env": "OTHER=1\n"}, "GEMINI_API_KEY in "},
		{"the server's own key is not the CLI's", map[string]string{"config/work/.env": "GEMINI_API_KEY=AIza-key\n"}, ""},
		{"Vertex's key", map[string]string{".gemini/.env": "GOOGLE_API_KEY=AIza-key\n"}, ""},
		{"empty or commented", map[string]string{".gemini/.env": "GEMINI_API_KEY=\nGEMINI_API_KEY= # todo\n"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			work := filepath.Join(home, "config", "work")
			if err := os.MkdirAll(work, 0o700); err != nil {
				t.Fatal(err)
			}
			for name, content := range tt.files {
				path := filepath.Join(home, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got := Login(home, work)
			if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) || strings.Contains(got, "AIza") {
				t.Errorf("Login = %q, want %q… (never the key)", got, tt.want)
			}
		})
	}
}
