package runners

import (
	"context"
	"sync/atomic"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// fetchStep is the step a run shows while npx fetches the Gemini CLI (GEMINI_CLI_NPX=on): the first one downloads
// it, which takes a minute or more. The engine shows it as the stage "using npx to fetch …".
const fetchStep = "npx to fetch the Gemini CLI (the first run downloads it: a minute or more)"

// announcingFetch is the CLI's runner r when npx fetches the CLI: until a run has succeeded (npx then has the CLI
// in its cache), each run first tells its caller, as a step of its own, that npx is fetching the CLI, so that the
// first search's download shows as a stage in the menu, on /status and in the client's progress instead of a
// silent wait. The CLI's own steps follow it.
func announcingFetch(r backend.Runner) backend.Runner {
	var fetched atomic.Bool
	return backend.RunnerFunc(func(ctx context.Context, req backend.Request) (backend.Result, error) {
		if req.OnEvent != nil && !fetched.Load() {
			req.OnEvent(backend.Event{Kind: backend.EventTool, Tool: fetchStep})
		}
		res, err := r.Run(ctx, req)
		if err == nil {
			fetched.Store(true)
		}
		return res, err
	})
}
