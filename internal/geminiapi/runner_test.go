package geminiapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

const testKey = "AIzaTestKey-0123456789-abcdefghijklmnop"

// newRunner serves mock on loopback and returns a runner pointed at it, with retries that wait a millisecond.
func newRunner(t *testing.T, mock *mockgemini.Server, timeout time.Duration) *geminiapi.Runner {
	t.Helper()
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close) // first: releases hanging requests
	r, err := geminiapi.New(t.Context(), geminiapi.Config{
		APIKey:  testKey,
		BaseURL: srv.URL,
		Model:   "gemini-test-flash",
		Timeout: timeout,
		Backoff: []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond},
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunGroundedAnswer(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	mock.Handle(mockgemini.KindSearch, mockgemini.Always(mockgemini.Grounded("Go 1.26 shipped in February 2026.",
		mockgemini.Source{URI: "https://go.dev/doc/go1.26", Title: "go.dev"},
		mockgemini.Source{URI: "https://go.dev/blog/go1.26", Title: "go.dev"})))
	r := newRunner(t, mock, 0)

	var events []backend.Event
	res, err := r.Run(t.Context(), backend.Request{Prompt: "When did Go 1.26 ship?", Model: "gemini-other",
		OnEvent: func(ev backend.Event) { events = append(events, ev) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Go 1.26 shipped in February 2026." || res.Backend != backend.API || res.Grounding == nil {
		t.Fatalf("got %+v", res)
	}
	if len(res.Grounding.Sources) != 2 || len(res.Grounding.Citations) != 1 ||
		!slices.Equal(res.Grounding.Citations[0].Sources, []int{1, 2}) ||
		!slices.Equal(res.URLs, []string{"https://go.dev/doc/go1.26", "https://go.dev/blog/go1.26"}) {
		t.Errorf("grounding: %+v, urls %q", res.Grounding, res.URLs)
	}
	reqs := mock.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	req := reqs[0]
	if req.Model != "gemini-other" || !req.Stream || !req.APIKey ||
		!slices.Equal(req.BuiltinTools, []string{"googleSearch", "urlContext"}) || req.Prompt != "When did Go 1.26 ship?" {
		t.Errorf("request: %+v", req)
	}
	if !strings.Contains(req.SystemInstruction, "do not write citation markers") {
		t.Errorf("system instruction: %q", req.SystemInstruction)
	}
	if strings.Contains(string(req.Body), testKey) {
		t.Error("the key is in the request body")
	}
}

// TestSystemInstructionFromAFile: a replacement of api-system.md (the config dir's prompts folder) is what the
// API gets as its system instruction.
func TestSystemInstructionFromAFile(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	mock.Handle(mockgemini.KindSearch, mockgemini.Always(mockgemini.Text("ok")))
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	r, err := geminiapi.New(t.Context(), geminiapi.Config{APIKey: testKey, BaseURL: srv.URL, Model: "m",
		Prompts: map[string]string{prompts.APISystem: "Answer like a pirate."}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(t.Context(), backend.Request{Prompt: "q"}); err != nil {
		t.Fatal(err)
	}
	if got := mock.Requests()[0].SystemInstruction; got != "Answer like a pirate." {
		t.Errorf("system instruction %q", got)
	}
}

func TestRunPlainOffersNoTools(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	r := newRunner(t, mock, 0)
	res, err := r.Run(t.Context(), backend.Request{Prompt: "Fix this JSON", Plain: true})
	if err != nil || res.Text != "Mock answer." || res.Grounding != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
	if req := mock.Requests()[0]; len(req.BuiltinTools) != 0 || req.Model != "gemini-test-flash" {
		t.Errorf("a plain request offered %q to %s", req.BuiltinTools, req.Model)
	}
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		replies  []mockgemini.Reply
		code     backend.Code // "" for success
		message  string
		requests int
	}{
		{"401: key rejected, no retry", []mockgemini.Reply{mockgemini.Unauthenticated()}, backend.CodeAuth, "rejected the API key", 1},
		{"400 invalid key", []mockgemini.Reply{mockgemini.Error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
			map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"})},
			backend.CodeAuth, "rejected the API key", 1},
		{"403", []mockgemini.Reply{mockgemini.PermissionDenied()}, backend.CodeAuth, "denied access", 1},
		{"429 daily: at once, no retry", []mockgemini.Reply{mockgemini.QuotaDaily()}, backend.CodeQuota,
			"The quota that ran out: GenerateRequestsPerDayPerProjectPerModel-FreeTier (limit 250, gemini-2.5-flash).", 1},
		{"429 per minute: waits retryDelay, then OK", []mockgemini.Reply{mockgemini.QuotaPerMinute("0.01s"), mockgemini.Text("Fine.")}, "", "", 2},
		{"429 per minute every time", []mockgemini.Reply{mockgemini.QuotaPerMinute("0.01s")}, backend.CodeQuota, "per-minute", 4},
		{"5xx twice, then OK", []mockgemini.Reply{mockgemini.Internal(), mockgemini.Internal(), mockgemini.Text("Fine.")}, "", "", 3},
		{"5xx every time: three retries", []mockgemini.Reply{mockgemini.Internal()}, backend.CodeAPI, "server error (500", 4},
		{"unknown model", []mockgemini.Reply{mockgemini.Error(404, "NOT_FOUND", "models/x is not found")}, backend.CodeAPI, "does not know this model", 1},
		{"empty 200", []mockgemini.Reply{mockgemini.Empty()}, backend.CodeEmpty, "empty answer", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mock := mockgemini.New()
			mock.Handle(mockgemini.KindSearch, mockgemini.Sequence(tt.replies...))
			r := newRunner(t, mock, time.Minute)
			res, err := r.Run(t.Context(), backend.Request{Prompt: "q"})
			if n := len(mock.Requests()); n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
			if tt.code == "" {
				if err != nil || res.Text != "Fine." {
					t.Errorf("got %q, %v", res.Text, err)
				}
				return
			}
			var e *backend.Error
			if !errors.As(err, &e) || e.Code != tt.code || !strings.Contains(e.Message, tt.message) {
				t.Fatalf("got %v, want %s %q", err, tt.code, tt.message)
			}
			if e.Hint == "" || strings.Contains(e.Error()+e.Detail+e.Hint, testKey) {
				t.Errorf("hint %q, detail %q: a hint is needed and the key must never show", e.Hint, e.Detail)
			}
			if e.Daily != (tt.code == backend.CodeQuota && strings.Contains(tt.name, "daily")) {
				t.Errorf("Daily = %v", e.Daily)
			}
		})
	}
}

func TestRunTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	mock.Handle(mockgemini.KindSearch, mockgemini.Always(mockgemini.Hang()))
	r := newRunner(t, mock, 100*time.Millisecond)
	_, err := r.Run(t.Context(), backend.Request{Prompt: "q"})
	var e *backend.Error
	if !errors.As(err, &e) || e.Code != backend.CodeAPITimeout || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang: got %v, want API_TIMEOUT", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(mock.Requests()) < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	r = newRunner(t, mock, 0)
	if _, err := r.Run(ctx, backend.Request{Prompt: "q"}); !errors.Is(err, context.Canceled) || backend.ErrorCode(err) != "" {
		t.Fatalf("cancelled: got %v, want the context's error", err)
	}
}

func TestUnreachableAPIAndNoKey(t *testing.T) {
	t.Parallel()
	r, err := geminiapi.New(t.Context(), geminiapi.Config{APIKey: testKey, Model: "m", BaseURL: "http://127.0.0.1:1",
		Backoff: []time.Duration{time.Millisecond, time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(t.Context(), backend.Request{Prompt: "q"})
	var e *backend.Error
	if !errors.As(err, &e) || e.Code != backend.CodeAPI || !strings.Contains(e.Message, "could not be reached") ||
		strings.Contains(e.Message+e.Detail, testKey) {
		t.Errorf("got %+v", err)
	}
	if _, err := geminiapi.New(t.Context(), geminiapi.Config{Model: "m"}); err == nil || !strings.Contains(err.Error(), "GEMINI_API_KEY") {
		t.Errorf("no key: got %v", err)
	}
}

func TestAnswerPastTheOutputLimit(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	long := mockgemini.Text(strings.Repeat("Der Föhn weht über München. ", 400))
	long.Chunks = 20
	mock.Handle(mockgemini.KindSearch, mockgemini.Always(long))
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	r, err := geminiapi.New(t.Context(), geminiapi.Config{APIKey: testKey, BaseURL: srv.URL, Model: "m", MaxOutput: 1000})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(t.Context(), backend.Request{Prompt: "q"})
	var e *backend.Error
	if !errors.As(err, &e) || e.Code != backend.CodeAPI || !strings.Contains(e.Message, "output limit of 1000 bytes") {
		t.Fatalf("got %v", err)
	}
	if !e.Partial.Truncated || len(e.Partial.Text) > 1000 || !utf8.ValidString(e.Partial.Text) {
		t.Errorf("partial: truncated=%v, %d bytes, valid UTF-8 %v", e.Partial.Truncated, len(e.Partial.Text), utf8.ValidString(res.Text))
	}
}

// An answer that ends for any reason but STOP comes back, with the reason in Unfinished: no failure, but not whole.
func TestUnfinishedAnswers(t *testing.T) {
	t.Parallel()
	const text = "Go 1.26 shipped in February 2026 with"
	tests := []struct {
		name  string
		reply mockgemini.Reply
		want  string
	}{
		{"whole", mockgemini.Text(text), ""},
		{"max tokens", mockgemini.MaxTokens(text), backend.FinishMaxTokens},
		{"safety", mockgemini.Reply{Text: text, Finish: "SAFETY"}, "SAFETY"},
		{"stream cut off", mockgemini.CutOff(text), backend.NoFinishReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mock := mockgemini.New()
			mock.Handle(mockgemini.KindSearch, mockgemini.Always(tt.reply))
			r := newRunner(t, mock, time.Minute)
			res, err := r.Run(t.Context(), backend.Request{Prompt: "q"})
			if err != nil || res.Text != text || res.Unfinished != tt.want {
				t.Errorf("got %q, unfinished %q, %v; want the text, unfinished %q", res.Text, res.Unfinished, err, tt.want)
			}
			if n := len(mock.Requests()); n != 1 {
				t.Errorf("%d requests, want 1: an unfinished answer is not sent again", n)
			}
		})
	}
}

// TestJSONSchemaOnTheModelsThatTakeIt: a request with a schema sends it (as JSON, with the research tools) to a
// model of JSONModels, and the prompt alone to any other. A model of the list that refuses the combination (400
// INVALID_ARGUMENT) is asked again without it at once, and from then on never gets it.
func TestJSONSchemaOnTheModelsThatTakeIt(t *testing.T) {
	t.Parallel()
	mock := mockgemini.New()
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	r, err := geminiapi.New(t.Context(), geminiapi.Config{APIKey: testKey, BaseURL: srv.URL, Model: "gemini-test-flash",
		JSONModels: []string{"gemini-3*", "gemini-*-latest", "*gemini-4*"}})
	if err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"type":"object","properties":{"report":{"type":"string"}},"required":["report"]}`)
	run := func(model string) backend.Result {
		t.Helper()
		res, err := r.Run(t.Context(), backend.Request{Prompt: "Research Go 1.26.", Model: model, Schema: schema})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		return res
	}
	sent := func() mockgemini.Request {
		reqs := mock.Requests()
		return reqs[len(reqs)-1]
	}

	for _, model := range []string{"gemini-3.5-flash", "gemini-flash-latest", "models/gemini-4-argon"} {
		if res := run(model); res.Usage == nil || res.Usage.Requests != 1 {
			t.Errorf("%s: usage %+v, want one request", model, res.Usage)
		}
		req := sent()
		if !sameJSON(req.ResponseSchema, schema) || !strings.Contains(string(req.Body), `"responseMimeType":"application/json"`) ||
			!slices.Equal(req.BuiltinTools, []string{"googleSearch", "urlContext"}) {
			t.Errorf("%s: schema %s, body %s", model, req.ResponseSchema, req.Body)
		}
	}
	run("gemini-2.5-flash")
	if req := sent(); req.ResponseSchema != nil || strings.Contains(string(req.Body), "responseMimeType") {
		t.Errorf("a model outside the list got the schema: %s", req.Body)
	}

	mock.Handle(mockgemini.KindSearch, func(req *mockgemini.Request) mockgemini.Reply {
		if req.ResponseSchema != nil {
			return mockgemini.Error(400, "INVALID_ARGUMENT", "Tool use with a response mime type: 'application/json' is unsupported")
		}
		return mockgemini.Text("Go 1.26 shipped in February 2026.")
	})
	before := len(mock.Requests())
	if res := run("gemini-3-refuses"); res.Usage == nil || res.Usage.Requests != 2 || res.Text != "Go 1.26 shipped in February 2026." {
		t.Errorf("refused schema: got %+v (usage %+v), want the answer of a second request", res, res.Usage)
	}
	run("gemini-3-refuses")
	reqs := mock.Requests()[before:]
	if len(reqs) != 3 || reqs[0].ResponseSchema == nil || reqs[1].ResponseSchema != nil || reqs[2].ResponseSchema != nil {
		t.Errorf("want the schema once, then never again for that model: %d requests", len(reqs))
	}

	// A 400 that has nothing to do with the schema fails the run without it too: the model keeps getting schemas.
	mock.Handle(mockgemini.KindSearch, mockgemini.Always(mockgemini.Error(400, "INVALID_ARGUMENT",
		"The input token count exceeds the maximum number of tokens allowed.")))
	before = len(mock.Requests())
	if _, err := r.Run(t.Context(), backend.Request{Prompt: "Research Go 1.26.", Model: "gemini-3.5-flash", Schema: schema}); err == nil {
		t.Fatal("an invalid request succeeded")
	}
	mock.Handle(mockgemini.KindSearch, mockgemini.Always(mockgemini.Text("{}")))
	run("gemini-3.5-flash")
	if reqs := mock.Requests()[before:]; len(reqs) != 3 || reqs[2].ResponseSchema == nil {
		t.Errorf("after an unrelated 400 the model lost its schema: %d requests", len(reqs))
	}
}

// sameJSON reports whether a and b are the same JSON value, whatever the order of their keys.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
