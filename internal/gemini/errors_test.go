package gemini

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	ok := outcome{streamed: true, sawResult: true, status: "success", text: "answer"}
	with := func(change func(*outcome)) outcome {
		o := ok
		change(&o)
		return o
	}
	tests := []struct {
		name    string
		o       outcome
		code    backend.Code // "" for success
		message string       // substring
	}{
		{"stream success", ok, "", ""},
		{"plain success", outcome{text: "answer"}, "", ""},
		{"daily quota by exit code", with(func(o *outcome) {
			o.exitCode, o.status, o.text = 173, "error", ""
			o.resultError = `[API Error: {"error":{"code":429,"message":"You have exhausted your daily quota on this model."}}]`
		}), backend.CodeQuota, "daily quota"},
		{"quota by retry lines, model auto exits 1", with(func(o *outcome) {
			o.exitCode, o.sawResult, o.stderr = 1, false, "Attempt 1 failed with status 429. Retrying with backoff..."
		}), backend.CodeQuota, "quota or rate limit"},
		{"server error after 429 retries is not a quota error", with(func(o *outcome) {
			o.exitCode, o.sawResult = 244, true
			o.stderr = "Attempt 1 failed with status 429. Retrying with backoff...\nAttempt 2 failed with status 500. Retrying with backoff..."
			o.resultError = `[API Error: {"error":{"code":500,"message":"Internal error encountered."}}]`
		}), backend.CodeCLI, "server error (HTTP 500)"},
		{"unknown model", with(func(o *outcome) {
			o.exitCode, o.sawResult = 148, true
			o.resultError = `[API Error: {"error":{"code":404,"message":"models/gemini-9 is not found"}}]`
		}), backend.CodeCLI, "does not know this model"},
		{"per-minute quota", with(func(o *outcome) {
			o.exitCode, o.errorEvents = 1, []string{"Quota exceeded for metric: generate_content_requests per minute, RESOURCE_EXHAUSTED"}
		}), backend.CodeQuota, "per-minute"},
		{"auth exit 41", outcome{exitCode: 41, stderr: "Invalid auth method selected."}, backend.CodeAuth, "not signed in"},
		{"auth 401", outcome{exitCode: 145, streamed: true, sawResult: true, status: "error", resultError: "[API Error: 401]"}, backend.CodeAuth, "401"},
		{"auth 403", outcome{exitCode: 147}, backend.CodeAuth, "403"},
		{"auth by text", outcome{exitCode: 1, stderr: "API key not valid. Please pass a valid API key."}, backend.CodeAuth, "401"},
		{"permission denied by text", outcome{exitCode: 1, stderr: `"status": "PERMISSION_DENIED"`}, backend.CodeAuth, "403"},
		{"untrusted exit 55", outcome{exitCode: 55}, backend.CodeUntrusted, "not a trusted workspace"},
		{"untrusted by text", outcome{exitCode: 1, stderr: "Gemini CLI is not running in a trusted directory. To proceed..."}, backend.CodeUntrusted, "trusted"},
		{"empty response exits 0", with(func(o *outcome) {
			o.status, o.text = "error", ""
			o.errorEvents = []string{"The model returned an empty response. Please try again."}
			o.resultError = "The model returned an empty response"
		}), backend.CodeEmpty, "empty response"},
		{"success without text", with(func(o *outcome) { o.text = " \n" }), backend.CodeEmpty, "empty answer"},
		{"plain without text", outcome{}, backend.CodeEmpty, "empty answer"},
		{"text but failed status, exit 0", with(func(o *outcome) { o.status = "error" }), backend.CodeCLI, `status "error"`},
		{"text but no result event, exit 0 (SIGTERM under no-relaunch)", with(func(o *outcome) { o.sawResult, o.status = false, "" }), backend.CodeCLI, "before finishing"},
		{"success status but exit 1", with(func(o *outcome) { o.exitCode = 1 }), backend.CodeCLI, "Gemini CLI exited with code 1."},
		{"crash", outcome{exitCode: 1, streamed: true, text: "partial", stderr: "TypeError: x\n    at f (file:///bundle/chunk.js:429:12)"}, backend.CodeCLI, "exited with code 1"},
		{"killed", outcome{exitCode: -1, exitDesc: "signal: killed"}, backend.CodeCLI, "signal: killed"},
		{"answer dropped as too long", with(func(o *outcome) { o.text, o.truncated, o.maxOutput = "", true, 1024 }), backend.CodeCLI, "output limit of 1024 bytes"},
		{"truncated answer is still an answer", with(func(o *outcome) { o.truncated = true }), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := classify(tt.o)
			if tt.code == "" {
				if e != nil {
					t.Fatalf("got %v, want success", e)
				}
				return
			}
			if e == nil {
				t.Fatalf("got success, want %s", tt.code)
			}
			if e.Code != tt.code || !strings.Contains(e.Message, tt.message) || e.ExitCode != tt.o.exitCode || e.Hint == "" {
				t.Errorf("got %s %q (exit %d, hint %q), want %s containing %q (exit %d) with a hint",
					e.Code, e.Message, e.ExitCode, e.Hint, tt.code, tt.message, tt.o.exitCode)
			}
		})
	}
}

// TestAuthHint: with a key configured, the advice is about that key, never to set one.
func TestAuthHint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		o      outcome
		want   string
		unwant string
	}{
		{"no key, not signed in", outcome{exitCode: 41, stderr: "Invalid auth method selected."}, "sign in, or set GEMINI_API_KEY", ""},
		{"key rejected", outcome{exitCode: 145, keyVar: "GOOGLE_API_KEY"}, "rejected the key in GOOGLE_API_KEY", "set GEMINI_API_KEY"},
		{"key rejected, by text", outcome{exitCode: 1, stderr: "API key not valid.", keyVar: "GEMINI_API_KEY"}, "rejected the key in GEMINI_API_KEY", "set GEMINI_API_KEY"},
		{"key denied", outcome{exitCode: 147, keyVar: "GEMINI_API_KEY"}, "The key in GEMINI_API_KEY may not use", "set GEMINI_API_KEY"},
		{"key set, no auth method", outcome{exitCode: 41, stderr: "Invalid auth method selected.", keyVar: "GEMINI_API_KEY"}, "did not use the key in GEMINI_API_KEY", "set GEMINI_API_KEY"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := classify(tt.o)
			if e == nil {
				t.Fatal("got success, want AUTH_ERROR")
			}
			if e.Code != backend.CodeAuth || !strings.Contains(e.Hint, tt.want) || (tt.unwant != "" && strings.Contains(e.Hint, tt.unwant)) {
				t.Errorf("got %v with hint %q, want AUTH_ERROR with a hint saying %q (and not %q)", e, e.Hint, tt.want, tt.unwant)
			}
		})
	}
}

func TestErrorUnwrap(t *testing.T) {
	t.Parallel()
	timeout := backend.Timeout(backend.CodeTimeout, 5*time.Minute, "GEMINI_SEARCH_TIMEOUT", context.DeadlineExceeded)
	if !errors.Is(timeout, context.DeadlineExceeded) || timeout.Message != "Research exceeded the timeout of 5m0s." {
		t.Errorf("got %v, want a timeout error wrapping context.DeadlineExceeded", timeout)
	}
	notFound := notFoundError(Command{Path: "/x/gemini"}, errors.New("no such file"))
	if !errors.Is(notFound, ErrCLINotFound) || notFound.Code != backend.CodeCLINotFound {
		t.Errorf("got %v, want CLI_NOT_FOUND wrapping ErrCLINotFound", notFound)
	}
	if got := backend.ErrorCode(fmt.Errorf("research: %w", timeout)); got != backend.CodeTimeout {
		t.Errorf("ErrorCode: got %q, want %q", got, backend.CodeTimeout)
	}
	if got := backend.ErrorCode(errors.New("other")); got != "" {
		t.Errorf("ErrorCode: got %q, want none", got)
	}
	if got, want := timeout.Error(), "CLI_TIMEOUT: Research exceeded the timeout of 5m0s."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
