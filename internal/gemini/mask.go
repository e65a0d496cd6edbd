package gemini

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
)

const redacted = "[redacted]"

// maxDetail bounds Error.Detail.
const maxDetail = 2048

// secretPatterns catch credentials the runner was not told about.
var secretPatterns = []struct {
	re   *regexp.Regexp
	repl string
}{
	{regexp.MustCompile(`AIza[0-9A-Za-z_\-]{35}`), redacted},                                              // Google API keys
	{regexp.MustCompile(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=\-]+`), "${1}" + redacted},                      // Authorization headers
	{regexp.MustCompile(`(?i)([?&](?:api_?)?key=)[^&\s"'<>\]]+`), "${1}" + redacted},                      // ?key= query parameters
	{regexp.MustCompile(`(?i)(x-goog-api-key\\?["']?\s*[:=]\s*\\?["']?)[^"'\s,}\\]+`), "${1}" + redacted}, // API key headers, also JSON-quoted
}

// minSecret is the shortest secret value masked: shorter values would mangle ordinary text.
const minSecret = 4

// masker replaces secrets in text the runner shows or logs.
type masker struct {
	secrets []string // longest first, so a secret containing another is masked whole
}

// newMasker masks the given secrets and the values of secret-looking
// variables in env (the child's environment: GEMINI_API_KEY, say).
func newMasker(secrets, env []string) masker {
	var m masker
	add := func(s string) {
		if len(s) >= minSecret && !slices.Contains(m.secrets, s) {
			m.secrets = append(m.secrets, s)
		}
	}
	for _, s := range secrets {
		add(s)
	}
	for _, kv := range env {
		if key := envKey(kv); len(kv) > len(key) && credential.Named(key, kv[len(key)+1:]) {
			add(kv[len(key)+1:])
		}
	}
	slices.SortFunc(m.secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return m
}

func (m masker) mask(s string) string {
	for _, secret := range m.secrets {
		s = strings.ReplaceAll(s, secret, redacted)
	}
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	return s
}

// noisePrefixes start stderr lines that say nothing about a failure: what the CLI prints on every run, Node stack
// frames (with paths inside the CLI's bundle), and the CLI's pointer to an error report in the run's private temp
// folder, which is deleted with the run.
var noisePrefixes = []string{
	"Warning: 256-color",
	"Ripgrep is not available",
	"[STARTUP]",
	"Loaded cached credentials",
	"YOLO mode",
	"at ",
	"Full report available at",
}

// relevantLines returns stderr's lines without blank lines and the CLI's
// routine noise.
func relevantLines(stderr string) []string {
	var lines []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimRight(line, " \t\r\n")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || slices.ContainsFunc(noisePrefixes, func(p string) bool { return strings.HasPrefix(trimmed, p) }) {
			continue
		}
		lines = append(lines, line)
	}
	return lines
}

// detail joins the last lines that fit in maxDetail bytes, dropping repeats.
// A single line longer than that keeps its start.
func detail(lines []string) string {
	var kept []string
	size := 0
	for i := len(lines) - 1; i >= 0; i-- {
		line := lines[i]
		if slices.Contains(kept, line) {
			continue
		}
		if size+len(line)+1 > maxDetail {
			if len(kept) == 0 {
				kept = append(kept, truncateString(line, maxDetail-len("…"))+"…")
			}
			break
		}
		kept = append(kept, line)
		size += len(line) + 1
	}
	slices.Reverse(kept)
	return strings.Join(kept, "\n")
}

// truncateString cuts s to at most n bytes without splitting a character.
func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
