package geminiapi

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"
	gi "google.golang.org/genai/interactions"
	"google.golang.org/genai/interactions/models/components"
	m "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
	"google.golang.org/genai/interactions/retry"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
)

// Google's Deep Research agent, through the Interactions API of the same SDK (google.golang.org/genai/interactions).
// A run is created in the background and followed on its event stream; a stream that breaks (the API ends each
// one after some minutes) is opened again from the last event received, and each time it ends the run's status is
// read, so a run that ended while no stream was open is seen. The report comes from the finished run's steps, its
// url_citation annotations becoming the Grounding the engine places [n] markers from.

// maxAgentSources bounds the sources of an agent's report: it reads far more than a grounded answer
// (backend.MaxSources), and its report cites them.
const maxAgentSources = 100

// AgentConfig is what an Agent needs, fixed for its lifetime.
type AgentConfig struct {
	APIKey   string
	BaseURL  string // GOOGLE_GEMINI_BASE_URL: another endpoint (tests use a mock); "" Google's
	Agent    string // the agent of a run; "" backend.DefaultResearchAgent
	MaxAgent string // the agent of a Max run; "" backend.DefaultResearchMaxAgent
	// Backoff is the wait before each retry of a server error, a rate limit or a broken stream that brought nothing
	// new; nil: DefaultBackoff.
	Backoff    []time.Duration
	Secrets    []string     // values to mask in any message or log line, besides the key
	HTTPClient *http.Client // nil: a client of its own, without a time limit (it would cut the event streams)
	Logger     *slog.Logger // nil discards
}

// Agent runs Google's Deep Research agent (backend.Agent). It is safe for concurrent use.
type Agent struct {
	cfg    AgentConfig
	client *gi.GenAI
	mask   credential.Masker
}

var _ backend.Agent = (*Agent)(nil)

// NewAgent returns an Agent for cfg.
func NewAgent(cfg AgentConfig) (*Agent, error) {
	if strings.TrimSpace(cfg.APIKey) == "" {
		return nil, errors.New("no Gemini API key: set GEMINI_API_KEY")
	}
	cfg.Agent = cmp.Or(cfg.Agent, backend.DefaultResearchAgent)
	cfg.MaxAgent = cmp.Or(cfg.MaxAgent, backend.DefaultResearchMaxAgent)
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	httpClient := cmp.Or(cfg.HTTPClient, ownClient())
	opts := []gi.SDKOption{
		gi.WithAPIVersion("v1beta"), // the SDK's paths hold the version, and nothing else sets it
		gi.WithSecurity(components.Security{APIKey: gi.String(cfg.APIKey)}),
		gi.WithClient(httpClient),
		// Its own retries would create a paid run again after a server error, and wait out no daily quota: the
		// retries are ours.
		gi.WithRetryConfig(retry.Config{Strategy: "none"}),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, gi.WithServerURL(strings.TrimSuffix(cfg.BaseURL, "/")))
	}
	return &Agent{cfg: cfg, client: gi.New(opts...), mask: credential.NewMasker(append(cfg.Secrets, cfg.APIKey), nil)}, nil
}

// Research creates a run for req (or takes req.Resume's) and follows it to its end. See backend.Agent.
func (a *Agent) Research(ctx context.Context, req backend.AgentRequest) (backend.Result, error) {
	start := time.Now()
	run := req.Resume
	if run == nil {
		created, err := a.create(ctx, req)
		if err != nil {
			return backend.Result{}, err
		}
		run = &created
	}
	if req.Followed != nil {
		req.Followed(*run)
	}
	a.cfg.Logger.Info("following a run of Google's Deep Research agent", "interaction", run.ID, "agent", run.Agent,
		"resumed", req.Resume != nil)
	done, err := a.follow(ctx, run, req)
	if err != nil {
		return backend.Result{}, err
	}
	res, err := a.ended(done)
	res.Duration = time.Since(start)
	return res.Masked(a.mask.Mask), err
}

// Cancel cancels the run id.
func (a *Agent) Cancel(ctx context.Context, id string) error {
	_, err := retried(ctx, a, opRun, func() (*operations.CancelInteractionByIDResponse, error) {
		return a.client.Interactions.Cancel(ctx, operations.CancelInteractionByIDRequest{ID: id})
	})
	return err
}

// create creates a run of req in the background.
func (a *Agent) create(ctx context.Context, req backend.AgentRequest) (backend.AgentRun, error) {
	agent := a.cfg.Agent
	switch {
	case req.Agent != "":
		agent = req.Agent
	case req.Previous != "": // a run goes on with the agent of the run it continues: a plan's, say
		prev, err := a.get(ctx, req.Previous)
		if err != nil {
			return backend.AgentRun{}, err
		}
		agent = cmp.Or(string(deref(prev.Agent)), agent)
	case req.Max:
		agent = a.cfg.MaxAgent
	}
	config := m.NewCreateAgentInteractionAgentConfig(m.DeepResearchAgentConfig{
		ThinkingSummaries:     m.ThinkingSummariesAuto.ToPointer(), // what it thinks is the progress users see
		Visualization:         m.VisualizationOff.ToPointer(),      // a report of text: clients show no charts
		CollaborativePlanning: gi.Bool(req.Plan),                   // with it, the run ends with a plan, which a turn must confirm
	})
	body := m.CreateAgentInteraction{
		Agent:       m.AgentOption(agent),
		Input:       gi.Pointer(m.NewInteractionsInput(req.Input)),
		Background:  gi.Bool(true), // the agent runs only in the background
		Store:       gi.Bool(true), // kept by Google, so that it can be followed again and followed up
		AgentConfig: &config,
	}
	if req.Previous != "" {
		body.PreviousInteractionID = gi.String(req.Previous)
	}
	op := opCreate
	if req.Previous != "" {
		op = opContinue
	}
	res, err := retried(ctx, a, op, func() (*operations.CreateInteractionResponse, error) {
		return a.client.Interactions.Create(ctx, operations.CreateInteractionRequest{
			Body: operations.NewCreateInteractionRequestBody(body)})
	})
	if err != nil {
		return backend.AgentRun{}, err
	}
	if res.Interaction == nil || res.Interaction.ID == nil || *res.Interaction.ID == "" {
		return backend.AgentRun{}, a.failure(backend.CodeAPI, "The Gemini API created a Deep Research run but gave no id for it.",
			hintAPI, nil)
	}
	return backend.AgentRun{ID: *res.Interaction.ID, Agent: agent, Planning: req.Plan}, nil
}

// follow reads run's events until it ends, opening its stream again from the last event after each break, and
// returns the run as it ended, read whole. Where the run stands is read when a stream ends whole (the API ends a
// stream after some minutes) or brings nothing new. The run goes on at Google whatever happens here, so a network
// or server failure (a laptop asleep, a Wi-Fi switch, a 503) does not end following it: the stream is opened
// again after a backoff that grows to maxFollowWait, for as long as ctx lasts (its time limit). Only a failure no
// wait mends (the key refused, the run no longer kept) ends it.
func (a *Agent) follow(ctx context.Context, run *backend.AgentRun, req backend.AgentRequest) (*m.Interaction, error) {
	w := &watcher{req: req, run: run}
	for fruitless := 0; ; {
		before := run.LastEvent
		failed := a.stream(ctx, w)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if run.LastEvent != before {
			fruitless = 0
			if failed != nil {
				continue // broken after some events: on from the last one
			}
		}
		now, err := a.get(ctx, run.ID)
		switch {
		case err == nil && ended(now.Status):
			return now, nil
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil && !transient(err):
			return nil, err
		case err != nil:
			failed = err
		}
		if failed == nil && run.LastEvent != before {
			continue // the stream ended whole after some events, and the run goes on
		}
		wait := a.followWait(fruitless)
		fruitless++
		a.cfg.Logger.Warn("following a Deep Research run failed; trying again", "interaction", run.ID, "wait", wait,
			"err", a.mask.Mask(fmt.Sprint(cmp.Or[error](failed, errNothingNew))))
		if !sleep(ctx, wait) {
			return nil, ctx.Err()
		}
	}
}

// maxFollowWait caps the wait between two attempts to follow a run: a run of many minutes is followed on soon
// after the network is back.
const maxFollowWait = 30 * time.Second

// errNothingNew is why a run is followed again when its stream ended whole without bringing anything.
var errNothingNew = errors.New("the stream of the run ended without news")

// followWait is the wait before the next attempt to follow a run after n failed in a row: the Backoff, then
// doubling up to maxFollowWait.
func (a *Agent) followWait(n int) time.Duration {
	last := len(a.cfg.Backoff) - 1
	if n <= last {
		return a.cfg.Backoff[n]
	}
	wait := a.cfg.Backoff[last]
	for range n - last {
		if wait *= 2; wait >= maxFollowWait {
			return maxFollowWait
		}
	}
	return wait
}

// transient reports whether err, a request's failure, may pass with time: the network, a server error, a
// per-minute rate limit.
func transient(err error) bool {
	var ae genai.APIError
	if errors.As(err, &ae) {
		return ae.Code >= 500 || ae.Code == http.StatusTooManyRequests && !daily(ae)
	}
	return network(err)
}

// stream reads run's event stream from its last event until the stream ends, telling w of each event.
func (a *Agent) stream(ctx context.Context, w *watcher) error {
	req := operations.GetInteractionByIDRequest{ID: w.run.ID, Stream: gi.Bool(true)}
	if w.run.LastEvent != "" {
		req.LastEventID = gi.String(w.run.LastEvent)
	}
	res, err := a.client.Interactions.Get(ctx, req)
	if err != nil {
		return err
	}
	st := res.InteractionSSEStreamEvent
	if st == nil {
		return errors.New("the Gemini API answered a request for the run's events with no stream")
	}
	defer st.Close()
	for st.Next() {
		w.event(st.Value().Data)
	}
	return st.Err()
}

// get reads the run id as it stands, with its steps.
func (a *Agent) get(ctx context.Context, id string) (*m.Interaction, error) {
	res, err := retried(ctx, a, opRun, func() (*operations.GetInteractionByIDResponse, error) {
		return a.client.Interactions.Get(ctx, operations.GetInteractionByIDRequest{ID: id})
	})
	if err != nil {
		return nil, err
	}
	if res.Interaction == nil {
		return nil, a.failure(backend.CodeAPI, "The Gemini API answered a request for the Deep Research run with no run.", hintAPI, nil)
	}
	return res.Interaction, nil
}

// ended reports whether a run in status s has ended: anything but running, queued or waiting.
func ended(s m.InteractionStatus) bool {
	switch s {
	case m.InteractionStatusInProgress, m.InteractionStatusQueued, "":
		return false
	}
	return true
}

// ended is the result of the run done, which has ended: its report, or why there is none.
func (a *Agent) ended(done *m.Interaction) (backend.Result, error) {
	res := report(done)
	switch done.Status {
	case m.InteractionStatusCompleted:
		if strings.TrimSpace(res.Text) == "" {
			return res, a.failure(backend.CodeEmpty, "Google's Deep Research agent finished without a report.", backend.HintEmpty, nil)
		}
		return res, nil
	case m.InteractionStatusCancelled:
		return res, &backend.Error{Code: backend.CodeCancelled, Message: "The Deep Research run was cancelled.", ExitCode: -1,
			Hint: "Start it again to research the topic anew.", Cause: context.Canceled}
	case m.InteractionStatusBudgetExceeded:
		return res, a.failure(backend.CodeQuota, "The Deep Research run stopped: it reached its budget.",
			"Check the project's billing and budget in Google AI Studio, then start it again.", nil)
	case m.InteractionStatusFailed, m.InteractionStatusIncomplete:
		msg := "The Deep Research run failed"
		if why := runErrors(done); why != "" {
			msg += ": " + why
		}
		e := a.failure(backend.CodeAPI, strings.TrimSuffix(msg, ".")+".", "Start it again; Google's agent sometimes "+
			"fails on its side. If it fails again, try engine rounds.", nil)
		e.Partial = res
		return res, e
	}
	return res, a.failure(backend.CodeAPI, fmt.Sprintf("The Deep Research run stopped in a state this server does not "+
		"know (%s).", done.Status), hintAPI, nil)
}

// runErrors is what a failed run says went wrong, in one line.
func runErrors(done *m.Interaction) string {
	var why []string
	for _, e := range done.Errors {
		if e.Message != nil && *e.Message != "" {
			why = append(why, *e.Message)
		} else if e.Code != nil {
			why = append(why, *e.Code)
		}
	}
	return shorten(strings.Join(why, "; "))
}

// failure is a classified error of the agent, with err's detail.
func (a *Agent) failure(code backend.Code, msg, hint string, err error) *backend.Error {
	return failure(a.mask, code, msg, hint, err)
}
