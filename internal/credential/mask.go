package credential

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
)

const redacted = "[redacted]"

// secretPatterns catch credentials the runner was not told about. Each has a hint, a lower-case word every match
// holds: a text without it is not searched, since a case-insensitive pattern scans slowly (seconds for a 16 MiB
// answer).
var secretPatterns = []struct {
	hint string
	re   *regexp.Regexp
	repl string
}{
	{"aiza", regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`), redacted},                                                        // Google API keys
	{"bearer", regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]+`), "${1}" + redacted},                              // Authorization headers
	{"key=", regexp.MustCompile(`(?i)([?&](?:api_?)?key=)[^&\s"'<>\]]+`), "${1}" + redacted},                                // ?key= query parameters
	{"x-goog-api-key", regexp.MustCompile(`(?i)(x-goog-api-key\\?["']?\s*[:=]\s*\\?["']?)[^"'\s,}\\]+`), "${1}" + redacted}, // API key headers, also JSON-quoted
}

// minSecret is the shortest secret value masked: shorter values would mangle ordinary text.
const minSecret = 4

// A Masker replaces credentials in text that is shown or logged: the values it was given, the values of
// credential-named variables of an environment, and anything that looks like a Google API key, a bearer token or a
// key parameter.
type Masker struct {
	secrets []string // longest first, so a secret containing another is masked whole
}

// NewMasker masks the given secrets and the values of credential-named variables in env (KEY=VALUE entries: a
// child's environment, with GEMINI_API_KEY, say).
func NewMasker(secrets, env []string) Masker {
	var m Masker
	add := func(s string) {
		if len(s) >= minSecret && !slices.Contains(m.secrets, s) {
			m.secrets = append(m.secrets, s)
		}
	}
	for _, s := range secrets {
		add(s)
	}
	for _, kv := range env {
		if key := EnvKey(kv); len(kv) > len(key) && Named(key, kv[len(key)+1:]) {
			add(kv[len(key)+1:])
		}
	}
	slices.SortFunc(m.secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return m
}

// Mask returns s with every credential replaced by [redacted].
func (m Masker) Mask(s string) string {
	for _, secret := range m.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	lower := strings.ToLower(s) // masking only takes hints away, so this stays good enough to skip patterns
	for _, p := range secretPatterns {
		if strings.Contains(lower, p.hint) {
			s = p.re.ReplaceAllString(s, p.repl)
		}
	}
	return s
}

// EnvKey returns the name in a KEY=VALUE entry. Windows has entries such as
// "=C:=C:\dir" whose name starts with "=".
func EnvKey(kv string) string {
	if kv == "" {
		return ""
	}
	if i := strings.IndexByte(kv[1:], '='); i >= 0 {
		return kv[:i+1]
	}
	return kv
}
