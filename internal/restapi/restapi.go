// Package restapi is the HTTP JSON API (/api/*, described by /api/openapi.json): the search and ask tools for
// scripts and web apps that don't speak MCP.
package restapi

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// Each route calls the tool's own handler, so arguments, queue, joining, cache, errors and the JSON it returns are
// the tool's; only the HTTP status is added.

// openAPI describes the API (OpenAPI 3.1); TestOpenAPIDescribesEveryRoute holds it to apiRoutes.
//
//go:embed openapi.json
var openAPI []byte

// apiRoute is one route of the API and the tool it calls.
type apiRoute struct {
	path string // POST
	tool string
	body func() apiBody
}

// apiBody is a route's request body: the fields it accepts, as the tool's arguments.
type apiBody interface{ args() map[string]any }

type searchBodyAPI struct {
	Query string `json:"query"`
	Limit *int   `json:"limit,omitempty"`
	Raw   bool   `json:"raw,omitempty"`
	Model string `json:"model,omitempty"`
	Fresh bool   `json:"fresh,omitempty"`
}

func (b *searchBodyAPI) args() map[string]any {
	args := map[string]any{"query": b.Query, "raw": b.Raw, "fresh": b.Fresh}
	if b.Limit != nil {
		args["limit"] = *b.Limit
	}
	if b.Model != "" {
		args["model"] = b.Model
	}
	return args
}

type chatBodyAPI struct {
	Prompt string `json:"prompt"`
	Model  string `json:"model,omitempty"`
}

func (b *chatBodyAPI) args() map[string]any {
	args := map[string]any{"prompt": b.Prompt}
	if b.Model != "" {
		args["model"] = b.Model
	}
	return args
}

var apiRoutes = []apiRoute{
	{path: "/api/google-search", tool: "search", body: func() apiBody { return &searchBodyAPI{} }},
	{path: "/api/gemini-chat", tool: "ask", body: func() apiBody { return &chatBodyAPI{} }},
}

// Handler serves the API's routes, under /api/.
func Handler(t *tools.Tools) http.Handler {
	mux := http.NewServeMux()
	for _, route := range apiRoutes {
		mux.HandleFunc("POST "+route.path, func(w http.ResponseWriter, r *http.Request) { serveTool(w, r, t, route) })
	}
	mux.HandleFunc("GET /api/openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(openAPI)
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, tools.CodeInvalidArgument, fmt.Sprintf("no route %s %s: see /api/openapi.json", r.Method, r.URL.Path))
	})
	return mux
}

// serveTool decodes the body of route, calls its tool and writes the tool's JSON, or streams the answer of a chat
// that accepts text/event-stream.
func serveTool(w http.ResponseWriter, r *http.Request, t *tools.Tools, route apiRoute) {
	body := route.body()
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(body); err != nil {
		WriteError(w, http.StatusBadRequest, tools.CodeInvalidArgument, "the body must be a JSON object of the fields "+
			"/api/openapi.json lists: "+strings.TrimPrefix(err.Error(), "json: "))
		return
	}
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = route.tool, body.args()
	handler := t.Handler(route.tool)
	if route.tool == "ask" && strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		streamAnswer(w, r, handler, req)
		return
	}
	res, err := handler(r.Context(), req)
	if err != nil {
		WriteError(w, http.StatusInternalServerError, research.CodeResearchFailed, err.Error())
		return
	}
	writeJSON(w, apiStatus(r.Context(), res), res.StructuredContent)
}

// streamAnswer runs the ask tool with the answer sent as server-sent events while the agent writes it:
// data: {"type":"stdout","content":…} for each piece, then one data: {"type":"close",…} with the tool's result.
// A client that goes away cancels the run (its request's context).
func streamAnswer(w http.ResponseWriter, r *http.Request, handler server.ToolHandlerFunc, req mcp.CallToolRequest) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		WriteError(w, http.StatusInternalServerError, research.CodeResearchFailed, "streaming is not supported here")
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
	res, err := handler(ctx, req)
	if err != nil {
		res = tools.ErrorResult(tools.Error{Code: research.CodeResearchFailed, Message: err.Error()})
	}
	send(map[string]any{"type": "close", "code": map[bool]int{false: 0, true: 1}[res.IsError],
		"status": apiStatus(r.Context(), res), "result": res.StructuredContent})
	mu.Lock()
	done = true
	mu.Unlock()
}

// apiStatus is the HTTP status of a tool's result: 200, or what its error code means over HTTP.
func apiStatus(ctx context.Context, res *mcp.CallToolResult) int {
	if !res.IsError {
		return http.StatusOK
	}
	switch backend.Code(tools.ErrorOf(res).Code) {
	case tools.CodeInvalidArgument:
		return http.StatusBadRequest
	case backend.CodeAuth:
		return http.StatusForbidden // the backend's credentials were refused; our own token gives 401
	case backend.CodeQuota, research.CodeQueueTimeout:
		return http.StatusTooManyRequests
	case backend.CodeTimeout, backend.CodeAPITimeout:
		return http.StatusGatewayTimeout
	case tools.CodeCancelled:
		if ctx.Err() == nil { // not the client: the server is shutting down
			return http.StatusServiceUnavailable
		}
		return 499 // the client went away; nobody reads this
	}
	return http.StatusBadGateway // the backend failed
}

// WriteError writes an error the way the tools return one.
func WriteError(w http.ResponseWriter, status int, code, message string) {
	writeJSON(w, status, tools.ErrorBody{Error: tools.Error{Code: code, Message: message}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status, b = http.StatusInternalServerError, *bytes.NewBufferString(`{"success":false}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.Copy(w, &b)
}
