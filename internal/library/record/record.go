// Package record holds what the research library keeps (reports, their sources, research jobs) as plain values,
// with the rules of their ids. It imports nothing but the standard library, so that the views (the tray's menu, the
// pages) read the library's values without importing the database behind it (internal/library).
package record

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// ErrNotFound is the error for an id that is malformed or names nothing the library keeps.
var ErrNotFound = errors.New("no such report or job in the research library")

// Source is a source of a report: a URL and, when the backend gave one, its title.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Summary is what a list shows of a kept report.
type Summary struct {
	ID       string // see ValidID
	Tool     string // search, deep_search, ask or structured
	Topic    string
	Depth    string // deep_search's depth; "" for the other tools
	Model    string
	Backend  string
	Started  time.Time
	Duration time.Duration
	Partial  bool   // cut off by the timeout: the report is what was produced in time
	Size     int64  // bytes of the report's text, sources and metadata, as the library's size limit counts them
	Excerpt  string // a search's words in their context in the report, on one line; "" in a plain list
}

// Identity is which research made a report: its tool and topic, when it started and how long it took. The calls
// that joined one run get its one report, and so do those the result cache answers with it: the library keeps that
// report once (Library.Add) and finds it again by its identity (Library.Find), and the result cache's entries of a
// report deleted are dropped by it.
type Identity struct {
	Tool     string
	Topic    string
	Started  time.Time     // the library keeps it to the microsecond
	Duration time.Duration // and this to the millisecond
}

// Is reports whether i and o are the same research, to the precision the library keeps.
func (i Identity) Is(o Identity) bool {
	return i.Tool == o.Tool && i.Topic == o.Topic && i.Started.UnixMicro() == o.Started.UnixMicro() &&
		i.Duration.Milliseconds() == o.Duration.Milliseconds()
}

// Identity is the identity of the report s sums up.
func (s Summary) Identity() Identity {
	return Identity{Tool: s.Tool, Topic: s.Topic, Started: s.Started, Duration: s.Duration}
}

// Report is a kept report: its summary, its Markdown and its sources.
type Report struct {
	Summary
	Markdown string
	Sources  []Source
	// Metadata is how the report was made, as the research engine tells it (its metadata as JSON: the sources
	// cited, claims verified, queries, rounds…), which the library keeps as it is given; nil for a report kept
	// without it (by an earlier release).
	Metadata json.RawMessage
}

// Document is r as one Markdown document: a quoted line with its tool, date and topic, its text, and its sources
// when the text does not list them. It is what clients read as the report's resource (research://reports/{id}),
// and what people copy and download from its page.
func (r Report) Document() string {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s, %s: %s\n\n", r.Tool, r.Started.UTC().Format(time.RFC3339), strings.Join(strings.Fields(r.Topic), " "))
	b.WriteString(r.Markdown)
	if len(r.Sources) > 0 && !strings.Contains(r.Markdown, r.Sources[0].URL) {
		b.WriteString("\n\n## Sources\n")
		for i, s := range r.Sources {
			if s.Title == "" {
				fmt.Fprintf(&b, "%d. %s\n", i+1, s.URL)
			} else {
				fmt.Fprintf(&b, "%d. [%s](%s)\n", i+1, s.Title, s.URL)
			}
		}
	}
	return b.String()
}

// Result is "partial" for a report cut off by the timeout, else "ok".
func (s Summary) Result() string {
	if s.Partial {
		return "partial"
	}
	return "ok"
}

// Took is how long the research took, as the menu and the status page show it: 42s, 3m05s, 1h02m.
func (s Summary) Took() string {
	d := s.Duration.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", d/time.Second)
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", d/time.Minute, d%time.Minute/time.Second)
	default:
		return fmt.Sprintf("%dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
	}
}

// When is when the research started, as short as its distance from now allows, in now's time zone: 15:04 today,
// Mon 15:04 within the last six days, 2 Jan 15:04 this year, else 2 Jan 2006.
func (s Summary) When(now time.Time) string {
	t := s.Started.In(now.Location())
	y, m, d := t.Date()
	ny, nm, nd := now.Date()
	switch {
	case y == ny && m == nm && d == nd:
		return t.Format("15:04")
	case t.Before(now) && now.Sub(t) < 6*24*time.Hour:
		return t.Format("Mon 15:04")
	case y == ny:
		return t.Format("2 Jan 15:04")
	default:
		return t.Format("2 Jan 2006")
	}
}

// idPattern is what a report's id looks like: the UTC time the report was kept, to the microsecond, and 32 random
// bits. The history files of earlier releases named their reports the same way, and keep their ids in the library.
var idPattern = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}\.[0-9]{6}-[0-9a-f]{8}$`)

// ValidID reports whether id has the form of a report's id (20261122T100000.123456-0a1b2c3d).
func ValidID(id string) bool { return idPattern.MatchString(id) }

// NewID returns a fresh report id for a report kept at now.
func NewID(now time.Time) string {
	return now.UTC().Format("20060102T150405.000000") + "-" + randomHex(4)
}

// JobState is where a research job is.
type JobState string

// The states of a job. Every state but JobRunning is final.
const (
	JobRunning     JobState = "running"
	JobDone        JobState = "done"        // it ended with a report (ReportID)
	JobFailed      JobState = "failed"      // it ended with an error (ErrorCode, ErrorMessage, ErrorDetails)
	JobCancelled   JobState = "cancelled"   // a client or the user cancelled it
	JobInterrupted JobState = "interrupted" // the server that ran it stopped or died before it ended
)

// JobStates are the states a job can be in.
var JobStates = []JobState{JobRunning, JobDone, JobFailed, JobCancelled, JobInterrupted}

// Job is a research job: one call of a research tool, which outlives the request that started it.
type Job struct {
	ID           string // see ValidJobID
	Tool         string
	Topic        string
	Args         json.RawMessage // the call's arguments, as JSON; nil: none kept
	State        JobState
	Stage        string    // what it is doing now, in a few words
	Started      time.Time //
	Ended        time.Time // zero while it runs
	ReportID     string    // the report it produced (or, while it runs, the last complete round's); "" for none
	ErrorCode    string
	ErrorMessage string
	ErrorDetails string
	Owner        string // the library (one per server process) that runs it
	// Remote is the run on another service the job follows (Google's Deep Research agent's), as JSON, which a
	// server can follow again after the one that ran the job stopped; nil: none.
	Remote json.RawMessage
}

// JobIDPattern is what a job's id looks like: 64 random bits in lower-case hex, the research_id clients see.
const JobIDPattern = `^[0-9a-f]{16}$`

var jobIDPattern = regexp.MustCompile(JobIDPattern)

// ValidJobID reports whether id has the form of a job's id (0a1b2c3d4e5f6071).
func ValidJobID(id string) bool { return jobIDPattern.MatchString(id) }

// NewJobID returns a fresh job id: short, and not to be guessed.
func NewJobID() string { return randomHex(8) }

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return strings.ToLower(hex.EncodeToString(b))
}

// Usage is what one research call used, as its backend told it: a row of the usage meter.
type Usage struct {
	At                         time.Time // when the call's research ended
	Tool, Backend, Model       string
	InputTokens, OutputTokens  int
	ThoughtTokens, TotalTokens int
	Searches, Requests         int
}

// UsageMeter is what the research used today and this month (local time), by backend and model.
type UsageMeter struct {
	Today []UsageTotal `json:"today"`
	Month []UsageTotal `json:"month"`
}

// UsageTotal is what the calls of one backend and model used over a time: how many, and their usage summed.
type UsageTotal struct {
	Backend string `json:"backend"`
	Model   string `json:"model"`
	Calls   int    `json:"calls"`

	InputTokens   int `json:"input_tokens"`
	OutputTokens  int `json:"output_tokens"`
	ThoughtTokens int `json:"thought_tokens,omitempty"`
	TotalTokens   int `json:"total_tokens"`
	Searches      int `json:"searches,omitempty"`
	Requests      int `json:"requests,omitempty"`
}
