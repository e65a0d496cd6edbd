package credential

import (
	"strings"
	"testing"
)

func TestMask(t *testing.T) {
	t.Parallel()
	googleKey := "AIza" + strings.Repeat("b", 35)
	tests := []struct {
		name     string
		secrets  []string
		extraEnv []string
		in       string
		want     string
	}{
		{"configured secret", []string{"s3cr3t-value"}, nil, "token s3cr3t-value leaked", "token [redacted] leaked"},
		{"short values are not masked", []string{"ab", ""}, nil, "a tab b", "a tab b"},
		{"longest secret first", []string{"abcd", "abcdefgh"}, nil, "x abcdefgh y abcd", "x [redacted] y [redacted]"},
		{"secret-looking extra env", nil, []string{"FIRECRAWL_API_KEY=fc-123456", "FIRECRAWL_API_URL=http://localhost:3002"},
			"key fc-123456 at http://localhost:3002", "key [redacted] at http://localhost:3002"},
		{"google api key", nil, nil, "using " + googleKey + ".", "using [redacted]."},
		{"bearer token", nil, nil, `Authorization: Bearer eyJhbGc.payload.sig"`, `Authorization: Bearer [redacted]"`},
		{"key query parameter", nil, nil, "GET https://x/v1?alt=sse&key=abc123&x=1", "GET https://x/v1?alt=sse&key=[redacted]&x=1"},
		{"api_key query parameter", nil, nil, "https://x/?api_key=abc123", "https://x/?api_key=[redacted]"},
		{"nothing secret", nil, nil, "Gemini CLI exited with code 1.", "Gemini CLI exited with code 1."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := NewMasker(tt.secrets, tt.extraEnv).Mask(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMaskerCoversTheChildsEnvironmentAndKeyHeaders(t *testing.T) {
	t.Parallel()
	m := NewMasker(nil, []string{"GEMINI_API_KEY=vertex-express-key-0123456789", "GOOGLE_GENAI_USE_AUTH=true", "PATH=/usr/bin"})
	in := `Headers: {"x-goog-api-key":"another-key-not-in-env"} key vertex-express-key-0123456789 is true in /usr/bin`
	got := m.Mask(in)
	want := `Headers: {"x-goog-api-key":"[redacted]"} key [redacted] is true in /usr/bin`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestEnvKey(t *testing.T) {
	t.Parallel()
	for kv, want := range map[string]string{
		"PATH=/bin":    "PATH",
		"A=b=c":        "A",
		"EMPTY=":       "EMPTY",
		"NOVALUE":      "NOVALUE",
		"=C:=C:\\work": "=C:",
		"":             "",
	} {
		if got := EnvKey(kv); got != want {
			t.Errorf("EnvKey(%q): got %q, want %q", kv, got, want)
		}
	}
}

// BenchmarkMaskLargeAnswer masks a 16 MiB answer without credentials, the most the CLI's output may hold: the
// final result of every run is masked whole.
func BenchmarkMaskLargeAnswer(b *testing.B) {
	m := NewMasker([]string{"AIza" + strings.Repeat("k", 35), "fc-0123456789abcdef"}, nil)
	answer := strings.Repeat("Go 1.26 was released in February 2026, see https://go.dev/doc/go1.26 for details. ", 210_000)[:16<<20]
	b.SetBytes(int64(len(answer)))
	for b.Loop() {
		m.Mask(answer)
	}
}
