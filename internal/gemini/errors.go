package gemini

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Hints, shared by the classifier and its tests.
const (
	// HintNotFound is how to install the CLI; HintAuth how to give it credentials when it has none.
	HintNotFound  = "Install the Gemini CLI with `npm install -g @google/gemini-cli` (Node.js 20 or later), or set GEMINI_CLI_PATH to its executable."
	hintQuota     = "Wait for the quota to reset, or set GEMINI_MODEL / GEMINI_FALLBACK_MODEL to another model."
	HintAuth      = "Run `gemini` once in a terminal and sign in, or set GEMINI_API_KEY (aistudio.google.com/apikey)."
	hintUntrusted = "The server sets GEMINI_CLI_TRUST_WORKSPACE=true; check that the installed Gemini CLI honours it (0.61.0 does), or trust the config folder in an interactive `gemini` session."
	hintCLI       = "Read the detail for the CLI's own error; running `gemini` by hand in the config folder shows it in full."
)

func notFoundError(cmd Command, cause error) *backend.Error {
	return &backend.Error{
		Code:     backend.CodeCLINotFound,
		Message:  fmt.Sprintf("The Gemini CLI could not be started (%s).", cmd.Path),
		Hint:     HintNotFound,
		ExitCode: -1,
		Cause:    fmt.Errorf("%w: %w", ErrCLINotFound, cause),
	}
}

// outcome is what a finished run left behind, as the classifier sees it.
type outcome struct {
	exitCode    int    // -1: killed by a signal
	exitDesc    string // "exit status 1", "signal: killed"
	stderr      string // noise-filtered
	streamed    bool
	sawResult   bool
	status      string // result.status
	resultError string
	errorEvents []string
	text        string
	truncated   bool
	maxOutput   int
	keyVar      string // Config.KeyVar
}

var (
	quotaText = regexp.MustCompile(`(?i)(^|[^:\d])429([^:\d]|$)|resource_exhausted|quota`)
	authText  = regexp.MustCompile(`(?i)invalid auth method|api key not valid|unauthenticated|permission_denied`)
	emptyText = regexp.MustCompile(`(?i)empty response`)
	retryLine = regexp.MustCompile(`(?im)^.*Attempt \d+ failed.*Retrying.*$`)
)

// classify returns nil for a successful run, else the failure's code,
// message and hint (the caller adds Detail and Partial). Success needs exit
// code 0, some answer text and, for stream-json, a result event with status
// "success": the CLI exits 0 on some failures.
func classify(o outcome) *backend.Error {
	if o.exitCode == 0 && strings.TrimSpace(o.text) != "" && (!o.streamed || o.status == "success") {
		return nil
	}
	fail := func(code backend.Code, msg, hint string) *backend.Error {
		return &backend.Error{Code: code, Message: msg, Hint: hint, ExitCode: o.exitCode}
	}
	quota := func(said string) *backend.Error {
		e := fail(backend.CodeQuota, quotaMessage(said), hintQuota)
		e.Daily = e.Message == backend.MessageDailyQuota
		return e
	}
	// What the CLI said, its final word first; stderr's retry lines are history ("Attempt 1 failed with status
	// 429") and must not decide a run that failed for another reason in the end.
	said := strings.Join(append(append([]string{o.resultError}, o.errorEvents...), retryLine.ReplaceAllString(o.stderr, "")), "\n")
	switch {
	case o.exitCode == 173:
		return quota(said)
	case o.exitCode == 41 || o.exitCode == 145 || o.exitCode == 147:
		return fail(backend.CodeAuth, authMessage(o.exitCode, said), authHint(o.exitCode, said, o.keyVar))
	case o.exitCode == 148: // HTTP 404 & 0xFF
		return fail(backend.CodeCLI, "The Gemini API does not know this model (404).", backend.HintModel)
	case o.exitCode == 244 || o.exitCode == 246 || o.exitCode == 247: // HTTP 500, 502, 503 & 0xFF
		return fail(backend.CodeCLI, fmt.Sprintf("The Gemini API failed with a server error (HTTP %d) after the CLI's retries.",
			o.exitCode+256), backend.HintServer)
	case o.exitCode == 55 || strings.Contains(strings.ToLower(said), "not running in a trusted directory"):
		return fail(backend.CodeUntrusted, "The Gemini CLI refused to run because the config folder is not a trusted workspace.", hintUntrusted)
	case authText.MatchString(said):
		return fail(backend.CodeAuth, authMessage(o.exitCode, said), authHint(o.exitCode, said, o.keyVar))
	case quotaText.MatchString(said):
		return quota(said)
	case emptyText.MatchString(said):
		return fail(backend.CodeEmpty, "The model returned an empty response.", backend.HintEmpty)
	case quotaText.MatchString(o.stderr): // only the retry history tells: the retries ran out on a quota
		return quota(o.stderr)
	case o.exitCode == -1:
		return fail(backend.CodeCLI, fmt.Sprintf("The Gemini CLI was stopped (%s).", o.exitDesc), hintCLI)
	case o.exitCode != 0:
		return fail(backend.CodeCLI, fmt.Sprintf("Gemini CLI exited with code %d.", o.exitCode), hintCLI)
	case o.streamed && !o.sawResult:
		return fail(backend.CodeCLI, "The Gemini CLI stopped before finishing its answer.", hintCLI)
	case o.status != "" && o.status != "success":
		return fail(backend.CodeCLI, fmt.Sprintf("The Gemini CLI reported a failed run (status %q).", o.status), hintCLI)
	case o.truncated:
		return fail(backend.CodeCLI, fmt.Sprintf("The Gemini CLI's answer exceeded the output limit of %d bytes.", o.maxOutput), backend.HintTooLong)
	default:
		return fail(backend.CodeEmpty, "The model returned an empty answer.", backend.HintEmpty)
	}
}

func quotaMessage(said string) string {
	s := strings.ToLower(said)
	switch {
	case strings.Contains(s, "daily quota") || strings.Contains(s, "per day"):
		return backend.MessageDailyQuota
	case strings.Contains(s, "per minute") || strings.Contains(s, "perminute") || strings.Contains(s, "retrydelay") ||
		strings.Contains(s, "please retry in"):
		return backend.MessagePerMinuteQuota
	default:
		return "The Gemini API quota or rate limit was exceeded (429 RESOURCE_EXHAUSTED)."
	}
}

// authHint is what to do about an AUTH_ERROR. With a key configured (keyVar names its variable) the advice is about
// that key, never to set one.
func authHint(exitCode int, said, keyVar string) string {
	if keyVar == "" {
		return HintAuth
	}
	switch authMessage(exitCode, said) {
	case msgDenied:
		return "The key in " + keyVar + " may not use this model or the Gemini API: enable the Generative Language " +
			"API for its project, or set GEMINI_MODEL to another model."
	case msgRejected:
		return "The Gemini API rejected the key in " + keyVar + ": check it against aistudio.google.com/apikey (a " +
			"missing character is the usual cause), or run `gemini` once in a terminal and sign in instead."
	default:
		return "The Gemini CLI selected no auth method, so it did not use the key in " + keyVar + ": run `gemini` " +
			"once in a terminal and choose \"Use Gemini API key\" or sign in with Google."
	}
}

const (
	msgDenied   = "The Gemini API denied access with these credentials (403 PERMISSION_DENIED)."
	msgRejected = "The Gemini API rejected the credentials (401 UNAUTHENTICATED)."
)

func authMessage(exitCode int, said string) string {
	s := strings.ToLower(said)
	switch {
	case exitCode == 147 || strings.Contains(s, "permission_denied"):
		return msgDenied
	case exitCode == 145 || strings.Contains(s, "api key not valid") || strings.Contains(s, "unauthenticated"):
		return msgRejected
	default:
		return "The Gemini CLI is not signed in (no valid auth method)."
	}
}
