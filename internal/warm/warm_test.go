package warm

import (
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

func TestWorkers(t *testing.T) {
	t.Parallel()
	serving := Server{Serving: true}
	tests := []struct {
		name string
		c    Conditions
		want int
	}{
		{"the CLI serves while a server serves", Conditions{serving, backend.CLI, true, 2}, 2},
		{"no server serves", Conditions{Server{}, backend.CLI, true, 2}, 0},
		{"shutting down", Conditions{Server{Serving: true, ShutDown: true}, backend.CLI, true, 2}, 0},
		{"the API serves", Conditions{serving, backend.API, true, 2}, 0},
		{"the CLI has no sign-in or key", Conditions{serving, backend.CLI, false, 2}, 0},
		{"GEMINI_WARM_WORKERS=0", Conditions{serving, backend.CLI, true, 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Workers(tt.c); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}
