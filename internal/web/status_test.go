package web

import (
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
)

// TestServerLine: the pages' status line names the backend that serves the next search, as the tray's does, or says
// that none can; a hint about the other backend changes nothing.
func TestServerLine(t *testing.T) {
	t.Parallel()
	running := httpserver.Status{State: httpserver.Running, Addr: "127.0.0.1:3000"}
	cliMissing := checklist.Check{Name: "Gemini CLI", Detail: "not found"}
	cliNote := checklist.Check{Name: "Gemini CLI", Hint: true, Detail: "not found, so auto uses the Gemini API"}
	onAPI := backend.State{Mode: backend.Auto, Active: backend.API, Reason: "the Gemini CLI is not installed"}
	onCLI := backend.State{Mode: backend.Auto, Active: backend.CLI}
	for _, tt := range []struct {
		name  string
		state appstate.State
		want  string
	}{
		{"auto on the API", appstate.State{Server: running, Backend: onAPI, Setup: []checklist.Check{cliNote}},
			"Running on http://127.0.0.1:3000/mcp · Gemini API (auto: the Gemini CLI is not installed)"},
		{"nothing can serve", appstate.State{Server: running, Backend: onCLI, Setup: []checklist.Check{cliMissing}},
			"Running on http://127.0.0.1:3000/mcp · no backend can serve: the Gemini CLI cannot start (see Check setup)"},
		{"stopped", appstate.State{Backend: onCLI, Setup: []checklist.Check{cliMissing}}, "Stopped"},
	} {
		tt.state.Server.Backend = tt.state.Backend.String() // as the App fills it in
		if got := serverLine(tt.state); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
