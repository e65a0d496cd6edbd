package config

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// redacted is what a non-empty Secret prints as.
const redacted = "[redacted]"

// Secret is a string that never prints its value: fmt (every verb), slog and
// encoding/json all see "[redacted]" (or "" when the secret is empty).
// Call Reveal where the real value is needed.
type Secret string

// Reveal returns the secret value.
func (s Secret) Reveal() string { return string(s) }

// String returns "" for an empty secret and "[redacted]" otherwise.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString masks the value for %#v.
func (s Secret) GoString() string { return s.String() }

// Format masks the value for every fmt verb, including the ones (like %d)
// that would otherwise print the raw string inside a %!d(...) error.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		io.WriteString(f, s.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), s.String())
}

// LogValue masks the value in log/slog output.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

// MarshalJSON masks the value in JSON output.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Last4 returns a mask for settings screens that shows only the last four
// characters, "••••abcd". A secret shorter than eight characters shows as
// eight bullets, so neither its end nor its length is revealed.
func (s Secret) Last4() string {
	if s == "" {
		return ""
	}
	r := []rune(string(s))
	if len(r) < 8 {
		return strings.Repeat("•", 8)
	}
	return "••••" + string(r[len(r)-4:])
}
