package credential

import "testing"

func TestNamed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		want        bool
	}{
		{"GEMINI_API_KEY", "AIzaSyA-1234567890", true},
		{"github_token", "ghp_abcdefgh", true},
		{"DB_PASSWORD", "hunter22", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/home/me/creds.json", true},
		{"USE_AUTH", "true", false}, // a flag, not a credential
		{"API_KEY", "short", false},
		{"GEMINI_MODEL", "gemini-2.5-pro", false},
		{"HOME", "/home/someone", false},
	}
	for _, tt := range tests {
		if got := Named(tt.name, tt.value); got != tt.want {
			t.Errorf("Named(%q, %q) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}
