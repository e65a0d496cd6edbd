package research

import (
	"cmp"
	"context"
	"errors"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Spent is what one call of a tool used, over all its runs: the research, its JSON corrections, a quota
// fallback, every round of a deep_search, the agent's plan and research, whether they succeeded or not.
type Spent struct {
	Tool    string
	Backend string // the backend of the last run
	Model   string // the model of the last run, when told
	Usage   backend.Usage
}

// spending sums the runs of one call as they end; Engine.run and the agent's runs add to the one in their context.
type spending struct {
	mu    sync.Mutex
	spent Spent
	told  bool // a run told its usage
}

type spendingKey struct{}

// withSpending is ctx carrying a new spending of a call of tool.
func withSpending(ctx context.Context, tool string) (context.Context, *spending) {
	s := &spending{spent: Spent{Tool: tool}}
	return context.WithValue(ctx, spendingKey{}, s), s
}

// spendingOf is the spending of the call ctx belongs to; nil outside one.
func spendingOf(ctx context.Context) *spending {
	s, _ := ctx.Value(spendingKey{}).(*spending)
	return s
}

// add counts a run that ended with res and err: its usage, or that of the partial answer err carries.
func (s *spending) add(res backend.Result, err error) {
	if s == nil {
		return
	}
	if ge := (*backend.Error)(nil); res.Usage == nil && errors.As(err, &ge) {
		res = ge.Partial
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spent.Backend, s.spent.Model = cmp.Or(res.Backend, s.spent.Backend), cmp.Or(res.Model, s.spent.Model)
	if res.Usage != nil {
		s.spent.Usage, s.told = *s.spent.Usage.Plus(res.Usage), true
	}
}

// so is what the call used so far; nil when no run told its usage.
func (s *spending) so() *Spent {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.told {
		return nil
	}
	spent := s.spent
	return &spent
}
