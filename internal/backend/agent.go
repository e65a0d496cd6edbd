package backend

import (
	"context"
	"errors"
	"time"
)

// ErrServerStopping is the cause of the end of a research run's context when the server stops: a run of the agent
// then goes on without it, to be followed again at the next start, where any other end cancels it.
var ErrServerStopping = errors.New("the server is stopping")

// Google's Deep Research agent researches a topic on its own, on Google's side, for minutes: it plans, runs its
// searches, reads and writes a cited report. A run (an interaction of the Interactions API) is created in the
// background and followed until it ends; it lives on without us, so a server that stops can follow it again later
// from its AgentRun.

// The engines of deep_search: the values of GEMINI_DEEP_RESEARCH_ENGINE and of deep_search's engine.
const (
	EngineRounds = "rounds" // our rounds: a research round, then verification rounds, on the backend in force
	EngineGoogle = "google" // Google's Deep Research agent (Agent), on Google's side
)

// The agents' names as the Interactions API knows them in November 2026 (GEMINI_DEEP_RESEARCH_AGENT and
// GEMINI_DEEP_RESEARCH_MAX_AGENT replace them).
const (
	DefaultResearchAgent    = "deep-research-preview-04-2026"
	DefaultResearchMaxAgent = "deep-research-max-preview-04-2026"
)

// An Agent runs Google's Deep Research agent. It is safe for concurrent use.
type Agent interface {
	// Research creates a run of the agent for req and follows it to its end, or follows req.Resume's run. The
	// Result's Text is the agent's report, its Grounding the report's citations, its Model the agent's name. A
	// cancelled ctx stops following; it does not cancel the run (Cancel does).
	Research(ctx context.Context, req AgentRequest) (Result, error)
	// Cancel cancels the run id, which stops what it costs.
	Cancel(ctx context.Context, id string) error
}

// AgentRequest is one run of the agent.
type AgentRequest struct {
	Input    string    // what to research: the topic, with what the report should hold
	Max      bool      // the Max agent: the deepest research, at the highest cost
	Plan     bool      // a plan only (collaborative planning): the run ends with the research plan as its text
	Previous string    // the run a follow-up continues; "" for a new topic
	Agent    string    // the agent to run, by its name; "": Previous's, else by Max
	Resume   *AgentRun // a run already created, to follow on from where it was left; nil creates one
	// Events gets each step of the run as it is told: searches, reads, what the agent thinks (EventTool with its
	// words in Text), the report being written (EventText).
	Events func(Event)
	// Followed, when set, is told the run as it goes: once created, then at each event, so that it can be followed
	// again (Resume) after a restart.
	Followed func(AgentRun)
}

// AgentRun is a run of the agent as it can be followed again: its id, its agent and the last event received.
type AgentRun struct {
	ID        string `json:"id"`
	Agent     string `json:"agent"`
	LastEvent string `json:"last_event,omitempty"`
	Planning  bool   `json:"planning,omitempty"` // a run that only plans (AgentRequest.Plan)
	// Kept with the run by whoever follows it (the agent sets neither), for a follow on after a restart: Plan is the
	// research plan it follows, as the agent proposed it, so that the report still says what was planned; Began is
	// when the research began, from which its time limit counts.
	Plan  string    `json:"plan,omitempty"`
	Began time.Time `json:"began,omitzero"`
}
