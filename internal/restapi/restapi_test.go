package restapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

func TestMain(m *testing.M) {
	geminitest.Main()
	os.Exit(m.Run())
}

// apiServer serves the HTTP side of a server on the fake CLI playing scenario.
func apiServer(t *testing.T, scenario string, env ...string) (*httptest.Server, *geminitest.Fake) {
	t.Helper()
	fake := geminitest.NewLocal(t, scenario)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
		KillGrace: 300 * time.Millisecond, ExtraEnv: append(fake.Env(), env...)})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(tools.New(engine, tools.Options{Version: "test"})))
	t.Cleanup(srv.Close)
	return srv, fake
}

// postAPI sends body to path and returns the status and the decoded JSON answer.
func postAPI(t *testing.T, srv *httptest.Server, path, body string, header ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := testkit.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%s: status %d, not a JSON answer (%s): %v", path, res.StatusCode, res.Header.Get("Content-Type"), err)
	}
	return res.StatusCode, got
}

func errorCode(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// TestAPIAnswersAsTheTools: the API returns the tools' own JSON, raw and limit included, and refuses bad bodies
// with INVALID_ARGUMENT and 400 before anything runs.
func TestAPIAnswersAsTheTools(t *testing.T) {
	t.Parallel()
	answer := "```json\n" + `{"success": true, "report": "Two facts [1][2].", "metadata": {"sources": [
  {"url": "https://a.example/1", "title": "A"}, {"url": "https://b.example/2", "title": "B"}]}}` + "\n```"
	srv, fake := apiServer(t, geminitest.ScenarioOK, geminitest.EnvAnswer+"="+answer)

	status, body := postAPI(t, srv, "/api/google-search", `{"query": "two facts"}`)
	if status != http.StatusOK || body["success"] != true || !strings.HasPrefix(body["report"].(string), "Two facts [1][2].") {
		t.Errorf("search: %d %v", status, body)
	}
	status, body = postAPI(t, srv, "/api/google-search", `{"query": "two facts", "raw": true, "limit": 1}`)
	if sources, _ := body["sources"].([]any); status != http.StatusOK || body["summary"] != "Two facts [1]." || len(sources) != 1 {
		t.Errorf("raw search: %d %v", status, body)
	}
	status, body = postAPI(t, srv, "/api/gemini-chat", `{"prompt": "hello", "model": "flash"}`)
	if status != http.StatusOK || body["success"] != true || body["parse_warning"] != nil {
		t.Errorf("chat: %d %v", status, body)
	}
	runs := len(fake.Calls())

	for _, tt := range []struct{ path, body, want string }{
		{"/api/google-search", `not json`, "the body must be a JSON object"},
		{"/api/google-search", `{"query": "q", "depth": "deep"}`, `unknown field "depth"`},
		{"/api/google-search", `{"query": "  "}`, "query must contain text"},
		{"/api/google-search", `{"query": "q", "limit": 50}`, "limit"},
		{"/api/gemini-chat", `{"prompt": 42}`, "prompt"},
		{"/api/nothing", `{}`, "no route POST /api/nothing"},
	} {
		status, body := postAPI(t, srv, tt.path, tt.body)
		msg, _ := body["error"].(map[string]any)["message"].(string)
		if status/100 != 4 || errorCode(body) != string(backend.CodeInvalidArgument) || !strings.Contains(msg, tt.want) {
			t.Errorf("%s %s: %d %v, want INVALID_ARGUMENT saying %q", tt.path, tt.body, status, body, tt.want)
		}
	}
	if n := len(fake.Calls()); n != runs {
		t.Errorf("refused requests ran the CLI %d times", n-runs)
	}
}

// TestAPIStatuses: a tool's error code becomes the fitting HTTP status.
func TestAPIStatuses(t *testing.T) {
	t.Parallel()
	for scenario, want := range map[string]int{geminitest.ScenarioAuth: http.StatusForbidden,
		geminitest.ScenarioQuota: http.StatusTooManyRequests, geminitest.ScenarioEmpty: http.StatusBadGateway} {
		srv, _ := apiServer(t, scenario)
		if status, body := postAPI(t, srv, "/api/google-search", `{"query": "q"}`); status != want || body["success"] != false {
			t.Errorf("%s: %d %v, want %d", scenario, status, body, want)
		}
	}
}

// TestAPIChatStreams: with Accept: text/event-stream the answer arrives in pieces while the agent still runs, and a
// client that goes away stops the run and every process it started.
func TestAPIChatStreams(t *testing.T) {
	t.Parallel()
	srv, _ := apiServer(t, geminitest.ScenarioOK)
	events := stream(t, context.Background(), srv, `{"prompt": "hello"}`, -1)
	var text strings.Builder
	for _, e := range events[:len(events)-1] {
		if e["type"] != "stdout" {
			t.Fatalf("event %v before the close", e)
		}
		text.WriteString(e["content"].(string))
	}
	last := events[len(events)-1]
	result, _ := last["result"].(map[string]any)
	if len(events) < 3 || text.String() != geminitest.DefaultAnswer || last["type"] != "close" || last["code"] != 0.0 ||
		result["report"] != geminitest.DefaultAnswer {
		t.Errorf("got %v", events)
	}

	srv, fake := apiServer(t, geminitest.ScenarioHang)
	ctx, cancel := context.WithCancel(context.Background())
	first := stream(t, ctx, srv, `{"prompt": "never ends"}`, 1) // the partial answer, while the agent hangs
	if len(first) != 1 || first[0]["type"] != "stdout" || len(fake.LiveRunPIDs()) == 0 {
		t.Fatalf("got %v with the agent running: %v", first, fake.LiveRunPIDs())
	}
	cancel()
	testkit.WaitFor(t, "the run to stop with its client", func() bool { return len(fake.LiveRunPIDs()) == 0 })
}

// stream posts a chat accepting text/event-stream and reads its events: n of them, or all (n < 0).
func stream(t *testing.T, ctx context.Context, srv *httptest.Server, body string, n int) []map[string]any {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/gemini-chat", strings.NewReader(body))
	req.Header.Set("Accept", "text/event-stream")
	res, err := testkit.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var events []map[string]any
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for (n < 0 || len(events) < n) && sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e map[string]any
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("event %q: %v", data, err)
		}
		events = append(events, e)
	}
	return events
}

// TestOpenAPIDescribesEveryRoute: /api/openapi.json is OpenAPI 3.1 and describes exactly the routes there are,
// and every route it describes answers.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	srv, _ := apiServer(t, geminitest.ScenarioOK)
	res, err := http.Get(srv.URL + "/api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode != http.StatusOK || doc.OpenAPI != "3.1.0" {
		t.Fatalf("GET /api/openapi.json: %d %v %q", res.StatusCode, err, doc.OpenAPI)
	}
	var documented, served []string
	for path, methods := range doc.Paths {
		for method := range methods {
			documented = append(documented, strings.ToUpper(method)+" "+path)
			req, _ := http.NewRequest(strings.ToUpper(method), srv.URL+path, strings.NewReader(`{}`))
			res, err := testkit.Client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed {
				t.Errorf("%s %s is documented but answers %d", method, path, res.StatusCode)
			}
		}
	}
	for _, r := range apiRoutes {
		served = append(served, "POST "+r.path)
	}
	served = append(served, "GET /api/openapi.json")
	slices.Sort(documented)
	slices.Sort(served)
	if !slices.Equal(documented, served) {
		t.Errorf("documented %q, served %q", documented, served)
	}
}

// TestAPICallsAreActivity: a call through the HTTP API is a running search like an MCP call (the tray and /status
// list it), and when the app ends the calls in progress it answers 503 with the reason.
func TestAPICallsAreActivity(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioHang)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
		KillGrace: 300 * time.Millisecond, ExtraEnv: fake.Env()})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := activity.New()
	srv := httptest.NewServer(Handler(tools.New(engine, tools.Options{Version: "test", Activity: reg})))
	t.Cleanup(srv.Close)

	type answer struct {
		status int
		body   map[string]any
	}
	done := make(chan answer, 1)
	go func() {
		status, body := postAPI(t, srv, "/api/google-search", `{"query": "an API call"}`)
		done <- answer{status, body}
	}()
	testkit.WaitFor(t, "the API call among the running searches", func() bool {
		running := reg.Snapshot().Running
		return len(running) == 1 && running[0].Query == "an API call"
	})
	reg.CancelAll("the server was stopped from the tray menu", "Start it again.")
	got := <-done
	e, _ := got.body["error"].(map[string]any)
	if msg, _ := e["message"].(string); got.status != http.StatusServiceUnavailable || errorCode(got.body) != "CANCELLED" ||
		!strings.Contains(msg, "the server was stopped from the tray menu") {
		t.Errorf("answer %d %v, want 503 CANCELLED with the reason", got.status, got.body)
	}
}
