package app

import (
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// resumeWithin is how far back a job interrupted while it followed a remote run is followed on at start: Google
// keeps a run of its agent, and its report, for longer than that.
const resumeWithin = 24 * time.Hour

// resumeJobs follows on the remote runs (Google's Deep Research agent's) of the jobs that servers sharing the
// library were following when they stopped or died: each becomes a job of this server under its id, which
// research_result and research_cancel reach as before. A job another server takes first is left to it.
func (a *App) resumeJobs() {
	if a.library == nil {
		return
	}
	jobs, err := a.library.Resumable(time.Now().Add(-resumeWithin))
	if err != nil {
		a.log.Warn("cannot read the research jobs to follow on", "err", err)
		return
	}
	for _, j := range jobs {
		taken, ok, err := a.library.Adopt(j.ID)
		if err != nil || !ok {
			if err != nil {
				a.log.Warn("cannot take on a research job", "research_id", j.ID, "err", err)
			}
			continue
		}
		if why := a.tools.Resume(a.lifetime, taken); why != nil {
			a.log.Warn("cannot follow on a research job", "research_id", j.ID, "err", why)
			_, err := a.library.UpdateJob(j.ID, func(k *record.Job) {
				k.State, k.ErrorCode = record.JobFailed, string(backend.CodeInternal)
				k.ErrorMessage = "this server could not follow on the research: " + why.Error()
			})
			if err != nil {
				a.log.Warn("cannot mark the research job failed", "research_id", j.ID, "err", err)
			}
			continue
		}
		a.log.Info("following on a run of Google's Deep Research agent that a stopped server began", "research_id", j.ID,
			"tool", j.Tool, "started", j.Started)
	}
}
