package mockgemini

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

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// Request bodies in the shapes the Gemini CLI 0.61.0 sends.
const (
	chatBody = `{"contents":[{"role":"user","parts":[{"text":"<session_context>ctx</session_context>"}]},
		{"role":"user","parts":[{"text":"research go 1.26"}]}],
		"systemInstruction":{"role":"user","parts":[{"text":"You are Gemini CLI."}]},
		"tools":[{"functionDeclarations":[{"name":"web_fetch"},{"name":"google_web_search"}]}],
		"generationConfig":{"temperature":1}}`
	toolTurnBody = `{"contents":[{"role":"user","parts":[{"text":"research go 1.26"}]},
		{"role":"model","parts":[{"functionCall":{"name":"google_web_search","args":{"query":"go 1.26"}}}]},
		{"role":"user","parts":[{"functionResponse":{"name":"google_web_search","response":{"output":"Web search results for \"go 1.26\": ..."}}}]}],
		"tools":[{"functionDeclarations":[{"name":"google_web_search"}]}]}`
	routerBody = `{"contents":[{"role":"user","parts":[{"text":"research"}]}],
		"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object",
		"properties":{"complexity_reasoning":{"type":"string"},"complexity_score":{"type":"number","minimum":1,"maximum":100},
		"model_choice":{"type":"string","enum":["flash","pro"]}}}}}`
	searchBody = `{"contents":[{"role":"user","parts":[{"text":"go 1.26"}]}],"tools":[{"googleSearch":{}}]}`
	fetchBody  = `{"contents":[{"role":"user","parts":[{"text":"summarize https://go.dev"}]}],"tools":[{"urlContext":{}}]}`
)

func start(t *testing.T) (*Server, string) {
	t.Helper()
	m := New()
	srv := httptest.NewServer(m)
	t.Cleanup(func() {
		m.Close()
		srv.Close()
	})
	return m, srv.URL
}

// post sends body to /v1beta/models/<model>:<action> and returns the status and body.
func post(t *testing.T, base, model, action, body string) (int, []byte) {
	t.Helper()
	url := base + "/v1beta/models/" + model + ":" + action
	if action == "streamGenerateContent" {
		url += "?alt=sse"
	}
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-goog-api-key", "secret-key")
	req.Header.Set("User-Agent", "GeminiCLI/0.61.0/"+model)
	res, err := testkit.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, data
}

// response is the part of a GenerateContentResponse the tests read.
type response struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         string        `json:"text"`
				FunctionCall *FunctionCall `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason      string `json:"finishReason"`
		GroundingMetadata *struct {
			GroundingChunks []struct {
				Web Source `json:"web"`
			} `json:"groundingChunks"`
			GroundingSupports []struct {
				Segment struct {
					EndIndex int `json:"endIndex"`
				} `json:"segment"`
				GroundingChunkIndices []int `json:"groundingChunkIndices"`
			} `json:"groundingSupports"`
		} `json:"groundingMetadata"`
	} `json:"candidates"`
	UsageMetadata *struct {
		TotalTokenCount int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
}

func (r response) text() string {
	var b strings.Builder
	for _, c := range r.Candidates {
		for _, p := range c.Content.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// events decodes a server-sent event stream.
func events(t *testing.T, data []byte) []response {
	t.Helper()
	var out []response
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		payload, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			if line != "" {
				t.Fatalf("unexpected line %q in the event stream", line)
			}
			continue
		}
		var r response
		if err := json.Unmarshal([]byte(payload), &r); err != nil {
			t.Fatalf("event %q: %v", payload, err)
		}
		out = append(out, r)
	}
	return out
}

func TestStreamText(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	m.Handle(KindChat, Always(Text("Go 1.26 shipped in February with several changes.")))
	status, body := post(t, base, "gemini-2.5-flash", "streamGenerateContent", chatBody)
	if status != http.StatusOK {
		t.Fatalf("got status %d, want 200", status)
	}
	evs := events(t, body)
	if len(evs) < 2 {
		t.Fatalf("got %d events, want the text in several chunks", len(evs))
	}
	var text strings.Builder
	for i, ev := range evs {
		text.WriteString(ev.text())
		last := i == len(evs)-1
		if got := ev.Candidates[0].FinishReason; (got == "STOP") != last {
			t.Errorf("event %d: finishReason %q, want STOP only on the last", i, got)
		}
		if (ev.UsageMetadata != nil) != last {
			t.Errorf("event %d: usage %v, want it only on the last", i, ev.UsageMetadata)
		}
	}
	if got, want := text.String(), "Go 1.26 shipped in February with several changes."; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
}

func TestGenerateContentKinds(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	tests := []struct {
		name   string
		action string
		body   string
		kind   Kind
		check  func(t *testing.T, r response)
	}{
		{"router fills the schema", "generateContent", routerBody, KindRouter, func(t *testing.T, r response) {
			var got map[string]any
			if err := json.Unmarshal([]byte(r.text()), &got); err != nil {
				t.Fatalf("router answer %q is not JSON: %v", r.text(), err)
			}
			if got["model_choice"] != "flash" || got["complexity_score"] != float64(1) || got["complexity_reasoning"] == "" {
				t.Errorf("got %v, want the first enum value, the minimum and a string", got)
			}
		}},
		{"search is grounded", "generateContent", searchBody, KindSearch, func(t *testing.T, r response) {
			g := r.Candidates[0].GroundingMetadata
			if g == nil || len(g.GroundingChunks) != len(DefaultSources) || g.GroundingChunks[0].Web != DefaultSources[0] {
				t.Fatalf("got grounding %+v, want the default sources", g)
			}
			if s := g.GroundingSupports[0]; s.Segment.EndIndex != len(r.text()) || !slices.Equal(s.GroundingChunkIndices, []int{0, 1}) {
				t.Errorf("got support %+v, want the whole text backed by every source", s)
			}
		}},
		{"fetch answers text", "generateContent", fetchBody, KindFetch, func(t *testing.T, r response) {
			if r.text() != "Mock page content." {
				t.Errorf("got %q", r.text())
			}
		}},
		{"chat without streaming", "generateContent", chatBody, KindChat, func(t *testing.T, r response) {
			if r.text() != "Mock answer." || r.Candidates[0].FinishReason != "STOP" {
				t.Errorf("got %+v", r)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := post(t, base, "gemini-2.5-flash", tt.action, tt.body)
			if status != http.StatusOK {
				t.Fatalf("got status %d: %s", status, body)
			}
			var r response
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatal(err)
			}
			tt.check(t, r)
			reqs := m.Requests()
			if got := reqs[len(reqs)-1].Kind; got != tt.kind {
				t.Errorf("recorded kind %q, want %q", got, tt.kind)
			}
		})
	}
}

func TestRecordsRequests(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	post(t, base, "gemini-2.5-pro", "streamGenerateContent", chatBody)
	post(t, base, "gemini-2.5-pro", "streamGenerateContent", toolTurnBody)
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests, want 2", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 1 || r.Model != "gemini-2.5-pro" || r.Action != "streamGenerateContent" || !r.Stream || r.Kind != KindChat {
		t.Errorf("got %+v", r)
	}
	if want := []string{"web_fetch", "google_web_search"}; !slices.Equal(r.Tools, want) {
		t.Errorf("tools: got %q, want %q", r.Tools, want)
	}
	if want := "<session_context>ctx</session_context>\n\nresearch go 1.26"; r.Prompt != want {
		t.Errorf("prompt: got %q, want %q", r.Prompt, want)
	}
	if r.SystemInstruction != "You are Gemini CLI." {
		t.Errorf("system instruction: got %q", r.SystemInstruction)
	}
	if !r.APIKey || r.Header["User-Agent"] != "GeminiCLI/0.61.0/gemini-2.5-pro" {
		t.Errorf("got api key %v, headers %v", r.APIKey, r.Header)
	}
	log, _ := json.Marshal(reqs)
	if strings.Contains(string(log), "secret-key") {
		t.Error("the API key was recorded")
	}
	if r.Reply != `text "Mock answer."` {
		t.Errorf("reply summary: got %q", r.Reply)
	}
	turn := reqs[1]
	if turn.ToolTurns != 1 || len(turn.FunctionResponses) != 1 || turn.FunctionResponses[0].Name != "google_web_search" ||
		!strings.HasPrefix(turn.FunctionResponses[0].Output(), "Web search results") {
		t.Errorf("tool turn: got %d turns, %+v", turn.ToolTurns, turn.FunctionResponses)
	}
}

func TestTurnsAndSequence(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	m.Handle(KindChat, Turns(
		Call("google_web_search", map[string]any{"query": "go 1.26"}),
		Text("done"),
	))
	for range 2 { // stateless: the same conversation start gets the same reply
		_, body := post(t, base, "m", "streamGenerateContent", chatBody)
		evs := events(t, body)
		call := evs[len(evs)-1].Candidates[0].Content.Parts[0].FunctionCall
		if call == nil || call.Name != "google_web_search" || call.Args["query"] != "go 1.26" {
			t.Fatalf("got %+v, want the google_web_search call", evs)
		}
	}
	if _, body := post(t, base, "m", "streamGenerateContent", toolTurnBody); events(t, body)[0].text() != "done" {
		t.Errorf("after a tool turn: got %s, want the answer", body)
	}

	m.Handle(KindChat, Sequence(Internal(), Text("recovered")))
	var got []int
	for range 3 {
		status, _ := post(t, base, "m", "generateContent", chatBody)
		got = append(got, status)
	}
	if want := []int{500, 200, 200}; !slices.Equal(got, want) {
		t.Errorf("sequence statuses: got %v, want %v (the last reply repeats)", got, want)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		reply   Reply
		status  int
		detail  string // an @type the details must hold
		message string
	}{
		{"401", Unauthenticated(), 401, "type.googleapis.com/google.rpc.ErrorInfo", "API key not valid"},
		{"403", PermissionDenied(), 403, "", "Permission denied"},
		{"429 per minute", QuotaPerMinute("2s"), 429, "type.googleapis.com/google.rpc.RetryInfo", "Please retry in 2s"},
		{"429 daily", QuotaDaily(), 429, "type.googleapis.com/google.rpc.QuotaFailure", "exceeded your current quota"},
		{"500", Internal(), 500, "", "internal error"},
	}
	m, base := start(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.Handle(KindSearch, Always(tt.reply))
			status, body := post(t, base, "m", "generateContent", searchBody)
			var e struct {
				Error APIError `json:"error"`
			}
			if err := json.Unmarshal(body, &e); err != nil {
				t.Fatal(err)
			}
			if status != tt.status || e.Error.Code != tt.status || !strings.Contains(e.Error.Message, tt.message) {
				t.Errorf("got %d %+v, want %d with %q", status, e.Error, tt.status, tt.message)
			}
			if tt.detail != "" && !strings.Contains(string(body), tt.detail) {
				t.Errorf("body %s lacks %s", body, tt.detail)
			}
		})
	}
	daily, _ := json.Marshal(QuotaDaily().Error)
	if !strings.Contains(string(daily), "PerDay") {
		t.Errorf("daily quota %s: the CLI recognises it by a quotaId containing PerDay", daily)
	}
}

func TestEmpty(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	m.Handle(KindChat, Always(Empty()))
	_, body := post(t, base, "m", "streamGenerateContent", chatBody)
	evs := events(t, body)
	if len(evs) != 1 || len(evs[0].Candidates[0].Content.Parts) != 0 || evs[0].Candidates[0].FinishReason != "STOP" {
		t.Errorf("got %s, want one event whose candidate has no parts", body)
	}
}

func TestHangReleasedByClientAndClose(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	m.Handle(KindChat, Always(Hang()))

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1beta/models/m:streamGenerateContent?alt=sse", strings.NewReader(chatBody))
	if _, err := testkit.Client.Do(req); err == nil {
		t.Fatal("a hanging request was answered")
	}

	done := make(chan int, 1)
	go func() {
		res, err := testkit.Client.Post(base+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(chatBody))
		if err != nil {
			done <- -1
			return
		}
		res.Body.Close()
		done <- res.StatusCode
	}()
	for len(m.Requests()) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	m.Close()
	select {
	case <-done:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("Close did not release a hanging request")
	}
	if got := m.Requests()[0].Reply; got != "hang" {
		t.Errorf("reply summary: got %q, want hang", got)
	}
}

func TestDelay(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	m.Handle(KindChat, Always(Reply{Text: "late", Delay: 200 * time.Millisecond}))
	began := time.Now()
	status, _ := post(t, base, "m", "generateContent", chatBody)
	if took := time.Since(began); status != 200 || took < 200*time.Millisecond {
		t.Errorf("got %d after %v, want 200 after at least 200ms", status, took)
	}
}

func TestOtherRequests(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	if status, body := post(t, base, "m", "countTokens", chatBody); status != 200 || !strings.Contains(string(body), "totalTokens") {
		t.Errorf("countTokens: got %d %s", status, body)
	}
	res, err := http.Get(base + "/v1beta/models")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("unknown path: got %d, want 404", res.StatusCode)
	}
	if got := m.RequestsOf(KindOther); len(got) != 2 {
		t.Errorf("got %d other requests, want 2", len(got))
	}
}

func TestSaveLog(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	post(t, base, "m", "generateContent", searchBody)
	path := t.TempDir() + "/logs/scenario.json"
	if err := m.SaveLog(path); err != nil {
		t.Fatal(err)
	}
	var got []Request
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &got); err != nil || len(got) != 1 || got[0].Kind != KindSearch {
		t.Errorf("log: got %s (%v)", data, err)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{"": 1, "one": 1, "one two": 1, "a b c": 3, "a b c d e f g": 3} {
		got := split(s, 3)
		if len(got) != want || strings.Join(got, "") != s {
			t.Errorf("split(%q) = %q, want %d pieces joining to the input", s, got, want)
		}
	}
}

func TestSplitEven(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    string
		n    int
		want []string
	}{
		{"", 4, []string{""}},
		{"one", 4, []string{"one"}},
		{"a b c", 5, []string{"a ", "b ", "c"}},
		{"a b c d e f g h i", 4, []string{"a b ", "c d ", "e f ", "g h i"}},
		{"Über 東京 und München", 2, []string{"Über 東京 ", "und München"}},
	} {
		if got := splitEven(tt.s, tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("splitEven(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func TestByPrompt(t *testing.T) {
	t.Parallel()
	m, base := start(t)
	m.Handle(KindChat, ByPrompt(Always(Text("fallback")),
		Route{Contains: "verify", Respond: Always(Text("verifier"))},
		Route{Contains: "research", Respond: Turns(Call("google_web_search", map[string]any{"query": "q"}), Text("researcher"))},
		Route{Contains: "go 1.26", Respond: Always(Text("shadowed by the route before"))},
	))
	m.Handle(KindSearch, ByPrompt(Always(Text("other results")), Route{Contains: "go 1.26", Respond: Always(Text("go results"))}))

	for _, tt := range []struct {
		name, body, want string
	}{
		{"first route that matches", chatBody, "call google_web_search"},
		{"same route after a tool turn", toolTurnBody, "researcher"},
		{"fallback", strings.ReplaceAll(chatBody, "research go 1.26", "hello"), "fallback"},
		{"search query", searchBody, "go results"},
		{"search fallback", strings.ReplaceAll(searchBody, "go 1.26", "rust"), "other results"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, body := post(t, base, "m", "generateContent", tt.body)
			var r response
			if err := json.Unmarshal(body, &r); err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			got := r.text()
			for _, p := range r.Candidates[0].Content.Parts {
				if p.FunctionCall != nil {
					got = "call " + p.FunctionCall.Name
				}
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
