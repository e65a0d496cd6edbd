package backend

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"golang.org/x/net/idna"
)

// What a model name may be, wherever one comes from (a call's argument, GEMINI_MODEL, an alias): a name like
// gemini-2.5-pro or models/gemini-2.5-flash, of letters and digits with single separators between them, so that the
// CLI cannot read it as a flag of its own and the API cannot read it as a path out of its models (..).
const (
	ModelPattern = `^[A-Za-z0-9]+(?:[._:/-][A-Za-z0-9]+)*$`
	MaxModelLen  = 100
)

var modelName = regexp.MustCompile(ModelPattern)

// ValidModel reports whether name is a model name (ModelPattern, at most MaxModelLen characters).
func ValidModel(name string) bool { return len(name) <= MaxModelLen && modelName.MatchString(name) }

// What both backends say in the same situation: a user reads one message and one fix, whichever backend ran.
const (
	MessageDailyQuota     = "The Gemini API daily quota for this model is exhausted (429)."
	MessagePerMinuteQuota = "The Gemini API per-minute rate limit for this model was exceeded (429)."

	HintServer  = "The Gemini API is having trouble; try again in a few minutes."
	HintEmpty   = "Retry, narrow the query, or set GEMINI_MODEL to another model."
	HintTooLong = "Ask for a shorter answer or narrow the query."
	HintModel   = "Check the model name in GEMINI_MODEL (or the call's model argument), e.g. gemini-2.5-flash, " +
		"or an alias: pro, flash, flash-lite."
)

// Timeout is the failure of a run whose own time limit ran out: code is CodeTimeout or CodeAPITimeout; variable
// sets the limit.
func Timeout(code Code, limit time.Duration, variable string, cause error) *Error {
	return &Error{
		Code:     code,
		Message:  fmt.Sprintf("Research exceeded the timeout of %s.", limit),
		Hint:     "Increase " + variable + " or narrow the query.",
		ExitCode: -1,
		Cause:    cause,
	}
}

// WebURL reports whether u is an http(s) URL, which a reader can follow.
func WebURL(u string) bool {
	return strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")
}

// ASCIIHost is a URL's host as DNS has it: lower case, without a final dot, a name in any script in its ASCII
// form (münchen.de is xn--mnchen-3ya.de; 127。0。0。1 is 127.0.0.1). A host that is no valid name stays as it is.
func ASCIIHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if ascii, err := idna.Lookup.ToASCII(host); err == nil {
		return ascii
	}
	return host
}

// WithTimeout is context.WithTimeout for a run's time limit, where 0 means none.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
