// Package warm is the warm policy, in one place: whether the Gemini CLI is kept started ahead of its prompts
// (warm), so that a search skips the CLI's start. The App says whether its servers serve, the backends of a
// configuration (internal/runners) add what they know and apply the number, and the CLI's runner (internal/gemini)
// follows use: nothing starts before a CLI search has succeeded, and what started stops after GEMINI_WARM_IDLE
// without a search.
package warm

import "github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"

// Server is the App's part of the conditions: whether a server of it serves, and whether it is shutting down.
type Server struct {
	Serving  bool // stdio from its start, HTTP while it runs
	ShutDown bool // Shutdown began: nothing is kept warm any more
}

// Conditions are everything the warm policy looks at.
type Conditions struct {
	Server
	Backend  string // the backend serving research now (backend.State.Active): auto's switch to the API cools the CLI
	CLIReady bool   // the CLI was found and has a sign-in or an API key to serve with
	Workers  int    // GEMINI_WARM_WORKERS: per model in use; 0 means none
}

// Workers is how many CLI processes to keep warm for each model in use: GEMINI_WARM_WORKERS while a server serves
// and shutdown has not begun, and the CLI serves research with a sign-in or a key; none otherwise. The CLI's --acp
// worker, one process serving many prompts, reads any number above 0 as one.
func Workers(c Conditions) int {
	if !c.Serving || c.ShutDown || c.Backend != backend.CLI || !c.CLIReady {
		return 0
	}
	return max(c.Workers, 0)
}
