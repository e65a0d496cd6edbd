// Package mockgemini is a scripted stand-in for the Gemini API
// (generativelanguage v1beta) on a loopback address, for tests that run the
// real Gemini CLI (GOOGLE_GEMINI_BASE_URL) or a Go client built on the
// official SDK (google.golang.org/genai, HTTPOptions.BaseURL).
//
// It answers POST /v1beta/models/{model}:streamGenerateContent?alt=sse and
// :generateContent, and :countTokens. Each request is sorted into a [Kind]:
// the agent's own turns ([KindChat]), structured-output calls such as the
// CLI's model router ([KindRouter]), Google Search grounding ([KindSearch],
// also a request that offers googleSearch and urlContext together, as the
// SDK client does) and URL context alone ([KindFetch]). A [Responder] per
// kind picks the [Reply]: text, a JSON document, function calls, a grounded
// answer ([Grounded], or [GroundedAnswer] with supports for given segments,
// webSearchQueries and URL context metadata), an API error (400 invalid key,
// 401, 403, 429 per minute or per day, 500, 503), an empty answer, an answer
// cut off by the output token limit ([MaxTokens]) or a stream that just ends
// without a finish reason ([CutOff]), a hang, a delay or a slow stream; [ByPrompt] gives the different prompts of one kind
// their own scripts. Every request is recorded ([Server.Requests]) with the
// model, the tools it offered, the system instruction, the prompt text and
// its headers; the API key only as [Request.APIKey], never its value.
//
//	mock := mockgemini.New()
//	mock.Handle(mockgemini.KindChat, mockgemini.Turns(
//		mockgemini.Call("google_web_search", map[string]any{"query": "go 1.26"}),
//		mockgemini.Text("Go 1.26 shipped in February."),
//	))
//	srv := httptest.NewServer(mock)
//	defer srv.Close()
//	defer mock.Close() // first: releases hanging requests, which srv.Close waits for
//
// # Grounding offsets
//
// As in the real API, a support's segment is [startIndex, endIndex) in UTF-8
// bytes within content part partIndex, and segment.text is that slice. A
// non-streamed answer may come in several parts ([Reply.Parts]). A streamed
// answer sends its text in several SSE chunks, each a one-part content, and
// the grounding metadata with the last chunk; its offsets refer to the text
// of the part concatenated across the chunks (partIndex 0), not to the chunk
// that carries them. The mock does the same: a multi-part reply streams as
// one part, with its supports' offsets moved into the concatenated text.
//
// # Deep Research agent
//
// It also serves the Interactions API (/v1beta/interactions) for Google's
// Deep Research agent ([KindAgent]): a create in the background, get, a
// stream of server-sent events resumable with last_event_id, cancel and
// delete. The responder's Reply for a create may carry an [AgentScript]
// (else [DefaultAgent]): the steps the agent takes (thought summaries,
// searches, pages read), how long each takes, the report with its
// url_citation annotations (UTF-8 byte offsets), or a failure, a plan for
// collaborative planning, streams cut after a few events. The interaction
// plays the script on the clock from its create, so a get or a stream sees
// what has happened by then.
//
//	mock.Handle(mockgemini.KindAgent, mockgemini.Always(mockgemini.Reply{Agent: &mockgemini.AgentScript{
//		Steps:     []mockgemini.AgentStep{{Thought: "Planning.", Search: []string{"go 1.26"}}},
//		Report:    "Go 1.26 shipped in February.",
//		Citations: []mockgemini.Citation{{URL: "https://go.dev/blog", Title: "go.dev", Text: "Go 1.26 shipped"}},
//	}}))
//
// The shapes are those the Gemini CLI 0.61.0 and google.golang.org/genai
// v1.77.0 (its interactions package for the agent) send and expect
// (shared/notes/gemini-cli.md, shared/notes/gemini-api.md).
package mockgemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Kind says what a request is for.
type Kind string

const (
	// KindChat is a turn of the agent's conversation: streamGenerateContent,
	// or generateContent that is none of the kinds below.
	KindChat Kind = "chat"
	// KindRouter asks for structured output (generationConfig.responseJsonSchema
	// or responseSchema): the CLI's model router and its other side checks.
	// The default reply fills the schema with plausible values.
	KindRouter Kind = "router"
	// KindSearch offers the googleSearch (or googleSearchRetrieval) tool:
	// the CLI's google_web_search, or a Go client of the API that offers
	// googleSearch and urlContext together (a request offering both is
	// KindSearch).
	KindSearch Kind = "search"
	// KindFetch offers the urlContext tool without googleSearch: the CLI's
	// web_fetch.
	KindFetch Kind = "fetch"
	// KindAgent is a request of the Interactions API: create (POST /v1beta/interactions), get and stream
	// (GET /v1beta/interactions/{id}[?stream=true&last_event_id=E]), cancel (POST /v1beta/interactions/{id}/cancel),
	// delete (DELETE /v1beta/interactions/{id}). Only a create asks the responder.
	KindAgent Kind = "agent"
	// KindOther is anything else (countTokens, unknown paths).
	KindOther Kind = "other"
)

// Request is one recorded request.
type Request struct {
	Seq               int               `json:"seq"`
	Time              time.Time         `json:"time"`
	Method            string            `json:"method"`
	Path              string            `json:"path"`
	Model             string            `json:"model,omitempty"`  // for KindAgent, the create's agent
	Action            string            `json:"action,omitempty"` // generateContent, streamGenerateContent, countTokens; create, get, stream, cancel, delete
	Stream            bool              `json:"stream,omitempty"`
	Interaction       string            `json:"interaction,omitempty"`   // KindAgent: the interaction asked for, or the one a create made
	LastEventID       string            `json:"last_event_id,omitempty"` // KindAgent: the event a stream resumes after
	Kind              Kind              `json:"kind"`
	Tools             []string          `json:"tools,omitempty"`         // names of the function declarations offered
	BuiltinTools      []string          `json:"builtin_tools,omitempty"` // googleSearch, urlContext, codeExecution ...; a create's google_search, url_context ...
	SystemInstruction string            `json:"system_instruction,omitempty"`
	Prompt            string            `json:"prompt,omitempty"`             // the text parts of every user turn, joined by blank lines; a create's input
	ToolTurns         int               `json:"tool_turns"`                   // user turns that carry tool results
	FunctionResponses []FunctionResult  `json:"function_responses,omitempty"` // every tool result so far, in order
	ResponseSchema    json.RawMessage   `json:"response_schema,omitempty"`
	Header            map[string]string `json:"header"` // without the API key or any credential
	APIKey            bool              `json:"api_key"`
	Body              json.RawMessage   `json:"body,omitempty"`
	Reply             string            `json:"reply"` // what the mock answered, in short
}

// FunctionResult is a tool result the CLI sends back to the model.
type FunctionResult struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

// Output returns the result's "output" field, the text the CLI's tools put
// there, or the whole response as text.
func (f FunctionResult) Output() string {
	var r struct {
		Output string `json:"output"`
	}
	if json.Unmarshal(f.Response, &r) == nil && r.Output != "" {
		return r.Output
	}
	return string(f.Response)
}

// Server is the mock. Its zero value is not usable: call New.
type Server struct {
	mu         sync.Mutex
	responders map[Kind]Responder
	requests   []Request
	closed     chan struct{}
	closeOnce  sync.Once

	interactions   map[string]*interaction // the Interactions API's, by id
	interactionSeq int                     // interactions created so far: the next id
}

// DefaultSources are the sources of the default search reply.
var DefaultSources = []Source{
	{URI: "https://example.com/mock-source-1", Title: "example.com"},
	{URI: "https://example.org/mock-source-2", Title: "example.org"},
}

// New returns a mock with default replies: chat answers "Mock answer.",
// router calls get their schema filled, searches a grounded answer citing
// DefaultSources, fetches a short page text, agent interactions run DefaultAgent.
func New() *Server {
	return &Server{
		responders: map[Kind]Responder{
			KindChat:   Always(Text("Mock answer.")),
			KindRouter: fillSchema,
			KindSearch: Always(Grounded("Mock search results: the topic is covered by two sources.", DefaultSources...)),
			KindFetch:  Always(Text("Mock page content.")),
			KindAgent:  Always(Reply{}),
		},
		closed:       make(chan struct{}),
		interactions: make(map[string]*interaction),
	}
}

// Handle sets the responder for one kind of request.
func (s *Server) Handle(k Kind, r Responder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responders[k] = r
}

// Requests returns a copy of every request so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// RequestsOf returns the requests of one kind.
func (s *Server) RequestsOf(k Kind) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == k {
			out = append(out, r)
		}
	}
	return out
}

// SaveLog writes the requests as indented JSON to path, creating its folder.
func (s *Server) SaveLog(path string) error {
	data, err := json.MarshalIndent(s.Requests(), "", "  ")
	if err != nil {
		return fmt.Errorf("encode request log: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save request log: %w", err)
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Close releases every request held by a hanging or delayed reply, and ends
// the streams of interactions waiting for their next event; later ones are
// answered at once. Call it before closing the HTTP server, which waits for
// running requests.
func (s *Server) Close() { s.closeOnce.Do(func() { close(s.closed) }) }

// secretHeaders are never recorded.
var secretHeaders = []string{"X-Goog-Api-Key", "Authorization", "Cookie", "Proxy-Authorization"}

// ServeHTTP answers one API request.
func (s *Server) ServeHTTP(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(io.LimitReader(hr.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body", http.StatusBadRequest)
		return
	}
	if isAgentPath(hr.URL.Path) {
		s.serveAgent(w, hr, body)
		return
	}
	req, parsed := parseRequest(hr, body)

	s.mu.Lock()
	req.Seq = len(s.requests) + 1
	respond := s.responders[req.Kind]
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	var rep Reply
	switch {
	case req.Kind == KindOther && req.Action == "countTokens":
		rep = Reply{} // answered below
	case respond == nil:
		rep = Error(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("mockgemini: no responder for %s %s", hr.Method, hr.URL.Path))
	default:
		rep = respond(&req)
	}
	s.setReply(req.Seq, rep.summary())

	if !s.hold(hr, rep) {
		return
	}
	switch {
	case rep.Status >= 400:
		writeJSON(w, rep.Status, map[string]any{"error": rep.Error})
	case req.Action == "countTokens":
		writeJSON(w, http.StatusOK, map[string]any{"totalTokens": max(len(parsed.text())/4, 1)})
	case req.Stream:
		s.writeStream(w, hr, rep, req.Model, len(body))
	default:
		writeJSON(w, http.StatusOK, rep.response(rep.textParts(), false, true, true, req.Model, len(body)))
	}
}

// hold waits out a reply's Delay or Hang. False means the request is over
// unanswered: the client left, or Close released a hang.
func (s *Server) hold(hr *http.Request, rep Reply) bool {
	if rep.Delay <= 0 && !rep.Hang {
		return true
	}
	var wait <-chan time.Time
	if !rep.Hang {
		wait = time.After(rep.Delay)
	}
	select {
	case <-wait:
		return true
	case <-hr.Context().Done():
		return false
	case <-s.closed:
		return !rep.Hang
	}
}

func (s *Server) setReply(seq int, summary string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests[seq-1].Reply = summary
}

// apiRequest is the part of a GenerateContentRequest the mock reads.
type apiRequest struct {
	Contents          []content `json:"contents"`
	SystemInstruction *content  `json:"systemInstruction"`
	Tools             []struct {
		FunctionDeclarations []struct {
			Name string `json:"name"`
		} `json:"functionDeclarations"`
		GoogleSearch          json.RawMessage `json:"googleSearch"`
		GoogleSearchRetrieval json.RawMessage `json:"googleSearchRetrieval"`
		URLContext            json.RawMessage `json:"urlContext"`
		CodeExecution         json.RawMessage `json:"codeExecution"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
		ResponseSchema     json.RawMessage `json:"responseSchema"`
	} `json:"generationConfig"`
}

type content struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             string          `json:"text"`
		FunctionResponse *FunctionResult `json:"functionResponse"`
	} `json:"parts"`
}

func (c content) text() string {
	var b []string
	for _, p := range c.Parts {
		if p.Text != "" {
			b = append(b, p.Text)
		}
	}
	return strings.Join(b, "\n")
}

func (a apiRequest) text() string {
	var b []string
	for _, c := range a.Contents {
		if c.Role != "model" {
			if t := c.text(); t != "" {
				b = append(b, t)
			}
		}
	}
	return strings.Join(b, "\n\n")
}

func parseRequest(hr *http.Request, body []byte) (Request, apiRequest) {
	req := Request{
		Time:   time.Now(),
		Method: hr.Method,
		Path:   hr.URL.Path,
		Kind:   KindOther,
		Header: make(map[string]string),
		Stream: hr.URL.Query().Get("alt") == "sse",
	}
	for name, values := range hr.Header {
		if slices.Contains(secretHeaders, name) {
			req.APIKey = req.APIKey || name == "X-Goog-Api-Key"
			continue
		}
		req.Header[name] = strings.Join(values, ", ")
	}
	if hr.URL.Query().Get("key") != "" {
		req.APIKey = true
	}
	if json.Valid(body) {
		req.Body = json.RawMessage(body)
	}
	if rest, ok := strings.CutPrefix(hr.URL.Path, "/v1beta/models/"); ok {
		req.Model, req.Action, _ = strings.Cut(rest, ":")
	}
	var a apiRequest
	if hr.Method != http.MethodPost || json.Unmarshal(body, &a) != nil {
		return req, a
	}
	for _, t := range a.Tools {
		for _, f := range t.FunctionDeclarations {
			req.Tools = append(req.Tools, f.Name)
		}
		for name, raw := range map[string]json.RawMessage{
			"googleSearch": t.GoogleSearch, "googleSearchRetrieval": t.GoogleSearchRetrieval,
			"urlContext": t.URLContext, "codeExecution": t.CodeExecution,
		} {
			if raw != nil {
				req.BuiltinTools = append(req.BuiltinTools, name)
			}
		}
	}
	slices.Sort(req.BuiltinTools)
	if a.SystemInstruction != nil {
		req.SystemInstruction = a.SystemInstruction.text()
	}
	req.Prompt = a.text()
	for _, c := range a.Contents {
		turn := false
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				req.FunctionResponses = append(req.FunctionResponses, *p.FunctionResponse)
				turn = true
			}
		}
		if turn {
			req.ToolTurns++
		}
	}
	req.ResponseSchema = a.GenerationConfig.ResponseJSONSchema
	if req.ResponseSchema == nil {
		req.ResponseSchema = a.GenerationConfig.ResponseSchema
	}

	switch req.Action {
	case "streamGenerateContent", "generateContent":
		switch {
		case slices.Contains(req.BuiltinTools, "googleSearch") || slices.Contains(req.BuiltinTools, "googleSearchRetrieval"):
			req.Kind = KindSearch
		case slices.Contains(req.BuiltinTools, "urlContext"):
			req.Kind = KindFetch
		case req.ResponseSchema != nil:
			req.Kind = KindRouter
		default:
			req.Kind = KindChat
		}
	}
	return req, a
}

// summary describes a reply in a few words for the request log.
func (r Reply) summary() string {
	var parts []string
	switch {
	case r.Hang:
		parts = append(parts, "hang")
	case r.Status >= 400:
		parts = append(parts, fmt.Sprintf("error %d %s", r.Status, r.Error.Status))
	case r.Empty:
		parts = append(parts, "empty")
	}
	if r.Delay > 0 {
		parts = append(parts, "after "+r.Delay.String())
	}
	switch {
	case r.NoFinish:
		parts = append(parts, "no finish reason")
	case r.Finish != "" && r.Finish != "STOP":
		parts = append(parts, "finish "+r.Finish)
	}
	if text := r.text(); text != "" {
		parts = append(parts, fmt.Sprintf("text %q", shorten(text, 60)))
	}
	if len(r.Parts) > 1 {
		parts = append(parts, fmt.Sprintf("in %d parts", len(r.Parts)))
	}
	for _, c := range r.Calls {
		parts = append(parts, "call "+c.Name)
	}
	if len(r.Grounding) > 0 {
		parts = append(parts, fmt.Sprintf("grounded in %d sources", len(r.Grounding)))
	}
	if r.Supports != nil {
		parts = append(parts, fmt.Sprintf("%d supports", len(r.Supports)))
	}
	if len(r.Queries) > 0 {
		parts = append(parts, fmt.Sprintf("queries %q", r.Queries))
	}
	if len(r.URLs) > 0 {
		parts = append(parts, fmt.Sprintf("%d urls", len(r.URLs)))
	}
	if r.ChunkDelay > 0 {
		parts = append(parts, "chunks every "+r.ChunkDelay.String())
	}
	if len(parts) == 0 {
		return "ok"
	}
	return strings.Join(parts, ", ")
}

func shorten(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// textParts returns the text parts of the answer: Parts, or Text as one
// part (none when empty).
func (r Reply) textParts() []string {
	if r.Parts != nil {
		return r.Parts
	}
	if r.Text == "" {
		return nil
	}
	return []string{r.Text}
}

// text returns the whole text of the answer.
func (r Reply) text() string { return strings.Join(r.textParts(), "") }

// response builds one GenerateContentResponse whose content holds texts,
// one part each: a chunk of a stream, or the whole answer. first adds the
// early metadata (EarlyMetadata); last adds the function calls, grounding,
// URL context metadata, finish reason and usage, unless NoFinish cuts the
// stream off before them (a non-streamed answer then lacks the finish reason).
func (r Reply) response(texts []string, stream, first, last bool, model string, promptBytes int) map[string]any {
	if r.NoFinish && stream {
		last = false
	}
	parts := []any{}
	for _, t := range texts {
		if t != "" {
			parts = append(parts, map[string]any{"text": t})
		}
	}
	cand := map[string]any{"index": 0}
	switch {
	case last:
		for _, c := range r.Calls {
			args := c.Args
			if args == nil {
				args = map[string]any{}
			}
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
		}
		if !r.NoFinish {
			cand["finishReason"] = cmpOr(r.Finish, "STOP")
		}
		if g := r.grounding(stream); g != nil {
			cand["groundingMetadata"] = g
		}
		if len(r.URLs) > 0 {
			cand["urlContextMetadata"] = r.urlContext()
		}
	case first && r.EarlyMetadata:
		if len(r.Queries) > 0 {
			cand["groundingMetadata"] = map[string]any{"webSearchQueries": r.Queries}
		}
		if len(r.URLs) > 0 {
			cand["urlContextMetadata"] = r.urlContext()
		}
	}
	if r.Empty {
		parts = []any{}
	}
	cand["content"] = map[string]any{"role": "model", "parts": parts}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": model}
	if last {
		in, out := max(promptBytes/4, 1), len(r.text())/4+len(r.Calls)*8+1
		resp["usageMetadata"] = map[string]int{"promptTokenCount": in, "candidatesTokenCount": out, "totalTokenCount": in + out}
	}
	return resp
}

// grounding returns the groundingMetadata, or nil when the reply has none.
// A stream sends the text parts as one part, which its supports refer to.
func (r Reply) grounding(stream bool) map[string]any {
	if len(r.Grounding) == 0 && r.Supports == nil && len(r.Queries) == 0 {
		return nil
	}
	parts, supports := r.textParts(), r.Supports
	if stream || len(parts) == 0 {
		parts = []string{r.text()}
	}
	if stream {
		supports = r.streamSupports()
	}
	g := map[string]any{"webSearchQueries": cmpOrSlice(r.Queries)}
	if len(r.Grounding) > 0 {
		chunks := make([]any, len(r.Grounding))
		for i, s := range r.Grounding {
			chunks[i] = map[string]any{"web": s}
		}
		g["groundingChunks"] = chunks
	}
	var wire []any
	switch {
	case r.Supports != nil:
		for _, s := range supports {
			wire = append(wire, s.wire())
		}
	case len(r.Grounding) > 0: // Grounded: each part backed by every source
		indices := make([]int, len(r.Grounding))
		for i := range indices {
			indices[i] = i
		}
		for i, text := range parts {
			seg := map[string]any{"startIndex": 0, "endIndex": len(text), "text": text}
			if i > 0 {
				seg["partIndex"] = i
			}
			wire = append(wire, map[string]any{"segment": seg, "groundingChunkIndices": indices})
		}
	}
	if len(wire) > 0 {
		g["groundingSupports"] = wire
	}
	return g
}

// wire is the support's JSON, zero values left out as the real API does.
func (s Support) wire() map[string]any {
	seg := map[string]any{"endIndex": s.End, "text": s.Text}
	if s.Start != 0 {
		seg["startIndex"] = s.Start
	}
	if s.Part != 0 {
		seg["partIndex"] = s.Part
	}
	out := map[string]any{"segment": seg}
	if len(s.Sources) > 0 {
		out["groundingChunkIndices"] = s.Sources
	}
	return out
}

func (r Reply) urlContext() map[string]any {
	meta := make([]any, len(r.URLs))
	for i, u := range r.URLs {
		meta[i] = map[string]any{"retrievedUrl": u.URL, "urlRetrievalStatus": cmpOr(u.Status, URLRetrievalSuccess)}
	}
	return map[string]any{"urlMetadata": meta}
}

// streamSupports returns the supports of a streamed answer, which sends its
// parts as one: partIndex 0, offsets within the concatenated text.
func (r Reply) streamSupports() []Support {
	if len(r.Parts) < 2 || r.Supports == nil {
		return r.Supports
	}
	offset := make([]int, len(r.Parts))
	for i := 1; i < len(r.Parts); i++ {
		offset[i] = offset[i-1] + len(r.Parts[i-1])
	}
	out := make([]Support, len(r.Supports))
	for i, s := range r.Supports {
		if s.Part > 0 && s.Part < len(r.Parts) {
			s.Start, s.End, s.Part = s.Start+offset[s.Part], s.End+offset[s.Part], 0
		}
		out[i] = s
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cmpOrSlice returns s, or an empty slice (JSON []) for nil.
func cmpOrSlice(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeStream answers as server-sent events: the text in Chunks chunks, or
// in up to 3 by default, the last carrying calls, grounding and the finish
// reason. With ChunkDelay it waits before each chunk after the first, until
// the client leaves (then it stops) or the mock closes (then it sends the
// rest at once).
func (s *Server) writeStream(w http.ResponseWriter, hr *http.Request, r Reply, model string, promptBytes int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	pieces := split(r.text(), 3)
	if r.Chunks > 0 {
		pieces = splitEven(r.text(), r.Chunks)
	}
	for i, p := range pieces {
		if i > 0 && r.ChunkDelay > 0 {
			select {
			case <-time.After(r.ChunkDelay):
			case <-hr.Context().Done():
				return
			case <-s.closed:
			}
		}
		last := i == len(pieces)-1
		data, _ := json.Marshal(r.response([]string{p}, true, i == 0, last, model, promptBytes))
		fmt.Fprintf(w, "data: %s\r\n\r\n", data)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// split cuts s into at most n pieces at spaces; it always returns at least
// one piece.
func split(s string, n int) []string {
	words := strings.SplitAfter(s, " ")
	if len(words) < n {
		return []string{s}
	}
	per := (len(words) + n - 1) / n
	var out []string
	for len(words) > 0 {
		k := min(per, len(words))
		out = append(out, strings.Join(words[:k], ""))
		words = words[k:]
	}
	return out
}

// splitEven cuts s at spaces into n pieces, or one per word when it has
// fewer words; it always returns at least one piece.
func splitEven(s string, n int) []string {
	words := strings.SplitAfter(s, " ")
	n = min(n, len(words))
	out := make([]string, n)
	for i := range n {
		out[i] = strings.Join(words[i*len(words)/n:(i+1)*len(words)/n], "")
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	_ = json.NewEncoder(&buf).Encode(v)
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
