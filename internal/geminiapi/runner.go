// Package geminiapi is the research engine's second backend: it sends a prompt straight to the Gemini API through
// the official Go SDK (google.golang.org/genai), with Google Search grounding and URL context as its tools. No
// Node, no agent start-up, and grounding data that says which segment of the answer rests on which source: the
// answer comes back with numbered [n] markers after each supported segment (see ground.go). It implements the same
// backend.Runner as the Gemini CLI, so every tool and round works on either.
//
// Errors are classified from the SDK's APIError: a rejected key is AUTH_ERROR, a daily quota
// QUOTA_ERROR at once, a per-minute limit is waited out as the server asks and retried, a server error retried
// with backoff, the time limit API_TIMEOUT with the text streamed so far. An answer that ends for any reason but
// STOP (MAX_TOKENS, SAFETY, …, or a stream that just ends) is no failure, but it is not whole either: the Result
// says why in Unfinished.
package geminiapi

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// DefaultBackoff is how long to wait before each retry of a server error: exponential, three retries within 7 s.
var DefaultBackoff = []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}

const (
	// defaultMaxRetryDelay caps the wait a per-minute rate limit asks for.
	defaultMaxRetryDelay = 60 * time.Second
	// rateLimitRetries bounds how often a per-minute rate limit is waited out in one run.
	rateLimitRetries = 3
	defaultMaxOutput = 16 << 20
)

// Config is what a Runner needs, fixed for its lifetime. Build a new Runner when the configuration changes.
type Config struct {
	APIKey        string
	BaseURL       string        // GOOGLE_GEMINI_BASE_URL: another endpoint (tests use a mock); "" the SDK's default
	Model         string        // the model of a request that names none
	Timeout       time.Duration // whole-run limit, retries included; 0 means none
	Backoff       []time.Duration
	MaxRetryDelay time.Duration     // cap on a per-minute limit's retryDelay; 0: 60 s
	MaxOutput     int               // answer bytes kept; default 16 MiB
	Secrets       []string          // values to mask in any message or log line, besides the key
	HTTPClient    *http.Client      // nil: a client of its own (ownClient)
	Logger        *slog.Logger      // nil discards
	Prompts       map[string]string // replacements of the embedded prompts, by name: the system instruction's
	// JSONModels are the patterns (path.Match: * for any characters) of the models that take a response JSON
	// schema together with their tools: a request with a Schema gets its answer as JSON in one request on them.
	JSONModels []string
}

// Runner calls the Gemini API, one request (plus retries) per Run. It is safe for concurrent use.
type Runner struct {
	cfg    Config
	client *genai.Client
	mask   credential.Masker
	system *genai.Content // prompts/api-system.md: the built-in tools, citations left to us, page text is data
	// schemaRefused holds the models of JSONModels that refused a schema with their tools (400) and answered
	// without it, with the schema (schemaKey): they get the prompt alone for it from then on.
	schemaRefused sync.Map
}

// New returns a Runner for cfg. The SDK's own error for a bad configuration prints the whole configuration, key
// included, so it is never passed on: the error says what to fix instead.
func New(ctx context.Context, cfg Config) (*Runner, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY")
	}
	if cfg.Model == "" {
		return nil, errors.New("no default model for the Gemini API")
	}
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	cfg.MaxRetryDelay = cmp.Or(cfg.MaxRetryDelay, defaultMaxRetryDelay)
	cfg.MaxOutput = cmp.Or(cfg.MaxOutput, defaultMaxOutput)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	system, err := prompts.Template(prompts.APISystem, cfg.Prompts)
	if err != nil {
		return nil, err
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      cfg.APIKey,
		Backend:     genai.BackendGeminiAPI, // explicit: GOOGLE_GENAI_USE_VERTEXAI in the environment must not switch it
		HTTPClient:  cmp.Or(cfg.HTTPClient, ownClient()),
		HTTPOptions: genai.HTTPOptions{BaseURL: cfg.BaseURL},
	})
	if err != nil {
		return nil, fmt.Errorf("the Gemini API client could not be set up (check GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL)")
	}
	return &Runner{cfg: cfg, client: client, mask: credential.NewMasker(append(cfg.Secrets, cfg.APIKey), nil),
		system: genai.NewContentFromText(system, genai.RoleUser)}, nil
}

// Run sends req's prompt, followed by the documents it names, with Google Search
// and URL context as tools (none for a Plain request) and returns the answer with its grounding. See the package
// doc for the errors.
func (r *Runner) Run(ctx context.Context, req backend.Request) (backend.Result, error) {
	if strings.TrimSpace(req.Prompt) == "" {
		return backend.Result{}, errors.New("gemini api: empty prompt")
	}
	start := time.Now()
	limit, limitVar := req.Limit(r.cfg.Timeout)
	runCtx, cancel := req.Bound(ctx, limit)
	defer cancel()
	model := cmp.Or(req.Model, r.cfg.Model)
	r.cfg.Logger.Debug("gemini api call start", "model", model, "prompt_bytes", len(req.Prompt))

	var (
		s                 *stream
		err               error
		serverRetries     int
		rateLimitRetried  int
		schemaRetried     bool // asked once more without req.Schema after a 400
		retryWait, waited time.Duration
		asJSON            = len(req.Schema) > 0 && r.takesSchema(model, req.Schema)
	)
	for {
		s = newStream(r.cfg.MaxOutput, r.maskedEvents(req.OnEvent))
		err = r.call(runCtx, model, req, asJSON, s)
		if asJSON && invalidArgument(err) {
			// Perhaps the model takes no schema with its tools, perhaps the schema or the request is at fault: ask
			// once more with the prompt alone, and remember the refusal only if that is answered.
			asJSON, schemaRetried = false, true
			continue
		}
		e := r.classify(err, s)
		if e == nil || runCtx.Err() != nil {
			break
		}
		retryWait = 0
		switch {
		case e.Code == backend.CodeQuota && !e.Daily && rateLimitRetried < rateLimitRetries:
			rateLimitRetried++
			retryWait = min(cmp.Or(retryDelay(err), r.cfg.MaxRetryDelay/4), r.cfg.MaxRetryDelay)
		case retryable(err) && serverRetries < len(r.cfg.Backoff):
			retryWait = r.cfg.Backoff[serverRetries]
			serverRetries++
		}
		if retryWait == 0 || !fits(runCtx, retryWait) {
			break
		}
		r.cfg.Logger.Warn("Gemini API call failed; retrying", "code", e.Code, "status", apiStatus(err),
			"wait", retryWait, "attempt", serverRetries+rateLimitRetried+1)
		if !sleep(runCtx, retryWait) {
			break
		}
		waited += retryWait
	}

	if schemaRetried && r.classify(err, s) == nil {
		r.schemaRefused.Store(schemaKey(model, req.Schema), true)
		r.cfg.Logger.Warn("the model refused a response JSON schema with its tools and answered without it: it gets "+
			"that schema in the prompt alone from now on (if it refuses every schema, take it out of GEMINI_API_JSON_MODELS)",
			"model", model)
	}
	res := s.result(model).Masked(r.mask.Mask)
	res.Duration = time.Since(start)
	res.Usage = res.Usage.Plus(&backend.Usage{Requests: 1 + serverRetries + rateLimitRetried + btoi(schemaRetried)})
	r.cfg.Logger.Debug("gemini api call end", "duration", res.Duration, "answer_bytes", len(res.Text),
		"queries", len(res.Queries), "sources", len(res.URLs), "waited", waited, "json_schema", asJSON)
	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("gemini api: %w", ctx.Err())
	case runCtx.Err() != nil:
		e := backend.Timeout(backend.CodeAPITimeout, limit, limitVar, runCtx.Err())
		e.Partial = res
		return res, e
	}
	if e := r.classify(err, s); e != nil {
		e.Partial = res
		r.cfg.Logger.Debug("gemini api call failed", "code", e.Code, "message", e.Message)
		return res, e
	}
	if res.Unfinished = s.unfinished(); res.Unfinished != "" {
		r.cfg.Logger.Debug("the Gemini API's answer stopped before its end", // the engine warns of the partial answer
			"finish_reason", res.Unfinished, "answer_bytes", len(res.Text))
	}
	return res, nil
}

// takesSchema reports whether model is one of GEMINI_API_JSON_MODELS and has not refused schema.
func (r *Runner) takesSchema(model string, schema json.RawMessage) bool {
	if _, refused := r.schemaRefused.Load(schemaKey(model, schema)); refused {
		return false
	}
	return slices.ContainsFunc(r.cfg.JSONModels, func(pattern string) bool { return matches(pattern, model) })
}

// matches reports whether model is pattern, where * stands for any characters ('/' too: models/gemini-3-flash).
func matches(pattern, model string) bool {
	ok, _ := path.Match(strings.ReplaceAll(pattern, "/", "\x00"), strings.ReplaceAll(model, "/", "\x00"))
	return ok
}

// schemaKey is what the runner remembers a model's refusal of a schema by.
func schemaKey(model string, schema json.RawMessage) string {
	sum := sha256.Sum256(schema)
	return model + " " + hex.EncodeToString(sum[:])
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// invalidArgument reports whether err is the API refusing a request as invalid (400 INVALID_ARGUMENT), which is
// how a model that does not take a response schema together with tools answers one; a key refused is not that.
func invalidArgument(err error) bool {
	var ae genai.APIError
	return errors.As(err, &ae) && ae.Code == http.StatusBadRequest && ae.Status == "INVALID_ARGUMENT" && !keyRejected(ae)
}

// call makes one streamed request, feeding s as the chunks arrive; asJSON asks for the answer as JSON of the
// request's Schema.
func (r *Runner) call(ctx context.Context, model string, req backend.Request, asJSON bool, s *stream) error {
	cfg := &genai.GenerateContentConfig{
		// We declare no functions, and an answer cut by CONTINUATION is kept as it is, unfinished, rather than
		// sent again.
		AutomaticContinuation: genai.Ptr(false),
		SystemInstruction:     r.system,
	}
	switch {
	case req.Fetch:
		cfg.Tools = []*genai.Tool{{URLContext: &genai.URLContext{}}}
	case !req.Plain:
		cfg.Tools = []*genai.Tool{{GoogleSearch: googleSearch(req)}, {URLContext: &genai.URLContext{}}}
	}
	if asJSON {
		cfg.ResponseMIMEType, cfg.ResponseJsonSchema = "application/json", req.Schema
	}
	turn := contents(req.Prompt, req.NamedDocuments())
	for chunk, err := range r.client.Models.GenerateContentStream(ctx, model, turn, cfg) {
		if err != nil {
			return err
		}
		if s.add(chunk); s.truncated {
			return nil // past the output limit: leaving the loop closes the stream
		}
	}
	return nil
}

// googleSearch is the Google Search tool of req: with its time range, when it has one. The API wants both ends: an
// open start is the Unix epoch, an open end now.
func googleSearch(req backend.Request) *genai.GoogleSearch {
	if req.After.IsZero() && req.Before.IsZero() {
		return &genai.GoogleSearch{}
	}
	after, before := req.After, req.Before
	if after.IsZero() {
		after = time.Unix(0, 0)
	}
	if before.IsZero() {
		before = time.Now()
	}
	return &genai.GoogleSearch{TimeRangeFilter: &genai.Interval{StartTime: after.UTC(), EndTime: before.UTC()}}
}

// contents is the request's one user turn: the prompt, then each document it names in a part of
// its own, delimited and marked with the name the prompt refers to it by, as the Gemini CLI follows a prompt with
// the files its @ references name: the model tells the request from the texts it quotes.
func contents(prompt string, docs []backend.Document) []*genai.Content {
	parts := []*genai.Part{genai.NewPartFromText(prompt)}
	for _, d := range docs {
		parts = append(parts, genai.NewPartFromText(fmt.Sprintf("--- Content from %s ---\n%s\n--- End of %s ---",
			d.Ref(), d.Text, d.Ref())))
	}
	return []*genai.Content{genai.NewContentFromParts(parts, genai.RoleUser)}
}

// fits reports whether waiting d leaves ctx time to try again.
func fits(ctx context.Context, d time.Duration) bool {
	deadline, ok := ctx.Deadline()
	return !ok || time.Until(deadline) > d
}

// sleep waits d, or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// maskedEvents passes each event to onEvent with the secrets masked; nil stays nil.
func (r *Runner) maskedEvents(onEvent func(backend.Event)) func(backend.Event) {
	if onEvent == nil {
		return nil
	}
	return func(ev backend.Event) { onEvent(ev.Masked(r.mask.Mask)) }
}

// ownClient is an HTTP client, without a time limit, whose connections are its own: the SDKs' default shares
// http.DefaultTransport's, which whatever closes that transport's idle connections (httptest.Server.Close, in the
// tests of any package) would break under a request being sent on one.
func ownClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}
