package app

import "time"

// resumeWithin is how far back a job interrupted while it followed a remote run is followed on when the library
// opens: Google keeps a run of its agent, and its report, for longer than that.
const resumeWithin = 24 * time.Hour

// resumeJobs follows on the remote runs (Google's Deep Research agent's) of the jobs that servers sharing the
// library were following when they stopped or died (tools.TakeOn), once the library opens (its first use). A job
// another server takes first is left to it; one interrupted later is taken on by the first research_result or
// research_cancel that asks for it.
func (a *App) resumeJobs() {
	if a.library == nil || a.lifetime.Err() != nil { // a server shutting down takes nothing on
		return
	}
	jobs, err := a.library.Resumable(time.Now().Add(-resumeWithin))
	if err != nil {
		a.log.Warn("cannot read the research jobs to follow on", "err", err)
		return
	}
	for _, j := range jobs {
		a.tools.TakeOn(j.ID)
	}
}
