// Package restapi is the HTTP JSON API (/api/*, described by /api/openapi.json): the search and ask tools for
// scripts and web apps that don't speak MCP. Each route calls its tool's typed call, so arguments, queue, joining,
// cache, errors and the JSON it returns are the tool's; only the HTTP status is added.
package restapi

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpjson"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// openAPI describes the API (OpenAPI 3.1); TestOpenAPIDescribesEveryRoute holds it to apiRoutes.
//
//go:embed openapi.json
var openAPI []byte

// apiRoute is one route of the API: POST path, and how it serves a request.
type apiRoute struct {
	path  string
	serve func(w http.ResponseWriter, r *http.Request, t *tools.Tools)
}

var apiRoutes = []apiRoute{
	{path: "/api/google-search", serve: serveSearch},
	{path: "/api/gemini-chat", serve: serveChat},
}

// Handler serves the API's routes, under /api/.
func Handler(t *tools.Tools) http.Handler {
	mux := http.NewServeMux()
	for _, route := range apiRoutes {
		mux.HandleFunc("POST "+route.path, func(w http.ResponseWriter, r *http.Request) { route.serve(w, r, t) })
	}
	mux.HandleFunc("GET /api/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openAPI)
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, backend.CodeInvalidArgument, fmt.Sprintf("no route %s %s: see /api/openapi.json", r.Method, r.URL.Path))
	})
	return mux
}

// searchBody is the body of /api/google-search: search's arguments but output_file.
type searchBody struct {
	Query string `json:"query"`
	Limit *int   `json:"limit,omitempty"`
	Raw   bool   `json:"raw,omitempty"`
	Model string `json:"model,omitempty"`
	Fresh bool   `json:"fresh,omitempty"`
}

func serveSearch(w http.ResponseWriter, r *http.Request, t *tools.Tools) {
	var body searchBody
	if !decode(w, r, &body) {
		return
	}
	res, err := t.Search(r.Context(), tools.SearchArgs{Query: body.Query, Limit: body.Limit, Raw: body.Raw,
		Model: body.Model, Fresh: body.Fresh})
	writeAnswer(w, r, res, err)
}

// chatBody is the body of /api/gemini-chat: ask's prompt and model.
type chatBody struct {
	Prompt string `json:"prompt"`
	Model  string `json:"model,omitempty"`
}

// serveChat runs ask, streaming the answer to a client that accepts text/event-stream.
func serveChat(w http.ResponseWriter, r *http.Request, t *tools.Tools) {
	var body chatBody
	if !decode(w, r, &body) {
		return
	}
	a := tools.AskArgs{Prompt: body.Prompt, Model: body.Model}
	if strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		streamAnswer(w, r, t, a)
		return
	}
	res, err := t.Ask(r.Context(), a)
	writeAnswer(w, r, res, err)
}

// decode reads r's body into body, a route's, answering a body that is not one with INVALID_ARGUMENT and 400; it
// reports whether it read one.
func decode(w http.ResponseWriter, r *http.Request, body any) bool {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(body); err != nil {
		writeError(w, http.StatusBadRequest, backend.CodeInvalidArgument, "the body must be a JSON object of the fields "+
			"/api/openapi.json lists: "+strings.TrimPrefix(err.Error(), "json: "))
		return false
	}
	return true
}

// writeAnswer writes a tool's answer as JSON, with the HTTP status of its error when it failed.
func writeAnswer[R tools.Result](w http.ResponseWriter, r *http.Request, res R, err error) {
	status, body := answer(r.Context(), res, err)
	httpjson.Write(w, status, body)
}

// answer is the HTTP status and JSON body of a tool's answer to a request made with ctx.
func answer[R tools.Result](ctx context.Context, res R, err error) (int, any) {
	if err != nil {
		e := tools.AsError(err)
		return e.Code.HTTPStatus(ctx.Err() != nil), tools.ErrorBody{Error: *e}
	}
	return http.StatusOK, res
}

// streamAnswer runs ask with the answer sent as server-sent events while the agent writes it:
// data: {"type":"stdout","content":…} for each piece, then one data: {"type":"close",…} with the tool's result.
// A client that goes away cancels the run (its request's context).
func streamAnswer(w http.ResponseWriter, r *http.Request, t *tools.Tools, a tools.AskArgs) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, backend.CodeInternal, "streaming is not supported here")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()

	var mu sync.Mutex // pieces come from the runner's goroutine; the close event from this one
	done := false
	send := func(event map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return
		}
		b, _ := json.Marshal(event)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		flusher.Flush()
	}
	ctx := tools.WithTextSink(r.Context(), func(text string) { send(map[string]any{"type": "stdout", "content": text}) })
	res, err := t.Ask(ctx, a)
	status, body := answer(r.Context(), res, err)
	send(map[string]any{"type": "close", "code": map[bool]int{false: 0, true: 1}[err != nil], "status": status,
		"result": body})
	mu.Lock()
	done = true
	mu.Unlock()
}

// writeError answers w with status and an error the way the tools return one.
func writeError(w http.ResponseWriter, status int, code backend.Code, message string) {
	httpjson.Write(w, status, tools.ErrorBody{Error: tools.Error{Code: code, Message: message}})
}
