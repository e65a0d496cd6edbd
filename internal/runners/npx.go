package runners

import (
	"context"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// fetchStep is the step a run shows while npx fetches the Gemini CLI (GEMINI_CLI_NPX=on): the first one downloads
// it, which takes a minute or more. The engine shows it as the stage "using npx to fetch …".
const fetchStep = "npx to fetch the Gemini CLI (the first run downloads it: a minute or more)"

// announcingFetch is the CLI's runner r when npx fetches the CLI: each run first tells its caller, as a step of its
// own, that npx is fetching the CLI, so that the first search's download shows as a stage in the menu, on /status
// and in the client's progress instead of a silent wait. The CLI's own steps follow it.
func announcingFetch(r backend.Runner) backend.Runner {
	return backend.RunnerFunc(func(ctx context.Context, req backend.Request) (backend.Result, error) {
		if req.OnEvent != nil {
			req.OnEvent(backend.Event{Kind: backend.EventTool, Tool: fetchStep})
		}
		return r.Run(ctx, req)
	})
}
