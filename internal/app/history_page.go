package app

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
)

// What /history and the report pages read from the App and do with its research library.

// maxElsewhere bounds the research of other servers that ResearchElsewhere lists.
const maxElsewhere = 50

// Browse is one page of the library's reports, newest first: those that hold every word of query (every one for a
// query without words), past the first offset, at most limit; and total, how many there are in all.
func (a *App) Browse(query string, offset, limit int) (page []record.Summary, total int, err error) {
	return a.library.Browse(query, offset, limit)
}

// ResearchElsewhere is the research running in the other server processes that share the library, newest first:
// its jobs kept as running by another owner (those of servers that are gone are marked interrupted first). A library
// that cannot be read lists none, and the log says why.
func (a *App) ResearchElsewhere() []record.Job {
	elsewhere, err := a.library.RunningElsewhere(maxElsewhere)
	if err != nil {
		a.log.Warn("cannot list the research running in other servers", "err", err)
		return nil
	}
	return elsewhere
}

// Delete removes the report id from the library, with the result cache's entries of its research, in the library
// and in this server's memory, so that an identical call is researched again; record.ErrNotFound when the library
// does not keep it. (Another server's memory may answer with it until its time to live is over; its answer is not
// kept again: engineOf.record.)
func (a *App) Delete(id string) error {
	rep, err := a.library.Get(id)
	if err != nil {
		return err
	}
	if err := a.library.Delete(id); err != nil {
		return err
	}
	a.cache.Forget(rep.Identity())
	return nil
}

// Rerun starts the research of the kept report id again, as a research job of its tool, and returns the job's id
// at once (rerunCall says with which arguments). record.ErrNotFound for a report not kept; research that cannot
// start again is a *web.SearchError with the fix.
func (a *App) Rerun(id string) (string, error) {
	rep, err := a.library.Get(id)
	if err != nil {
		return "", err
	}
	job, err := a.library.ReportJob(id)
	if err != nil && !errors.Is(err, record.ErrNotFound) {
		return "", err
	}
	tool, args, err := rerunCall(rep.Summary, job)
	if err != nil {
		return "", err
	}
	return a.startResearch(tool, args)
}

// rerunCall is the call that researches the report s again: its job's tool and arguments, as the library keeps them
// (job; a zero one when none is kept), researched afresh (fresh: never the cache's answer), without its output_file
// (the page is no client that asked for a file: nothing is written) and its wait_seconds (nobody waits). A report
// imported from the history of an earlier release has no job: a search or deep_search is called with its topic
// (and depth) again; the topic of an ask or structured call keeps only the first words of its prompt, and a
// structured call's schema is not kept, so those cannot be called again.
func rerunCall(s record.Summary, job record.Job) (tool string, args json.RawMessage, err error) {
	call := map[string]json.RawMessage{}
	text := func(v string) json.RawMessage { raw, _ := json.Marshal(v); return raw }
	switch {
	case len(job.Args) > 0:
		if err := json.Unmarshal(job.Args, &call); err != nil {
			return "", nil, fmt.Errorf("read the arguments of research %s: %w", job.ID, err)
		}
		s.Tool = job.Tool
	case s.Tool == "search":
		call["query"] = text(s.Topic)
	case s.Tool == "deep_search":
		call["topic"] = text(s.Topic)
		if s.Depth != "" {
			call["depth"] = text(s.Depth)
		}
	default:
		return "", nil, &web.SearchError{Code: backend.CodeInvalidArgument,
			Message: "the library keeps only the first words of this " + s.Tool + " call's request, not the call itself",
			Details: "Ask your client to call " + s.Tool + " again with the whole request."}
	}
	delete(call, "output_file")
	delete(call, "wait_seconds")
	call["fresh"] = json.RawMessage("true")
	args, err = json.Marshal(call)
	return s.Tool, args, err
}
