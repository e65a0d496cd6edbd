package research

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// Spent is what one call of a tool used on one backend and model, over all its runs there: the research, its JSON
// corrections, a quota fallback, every round of a deep_search, the agent's plan and research, whether they
// succeeded or not.
type Spent struct {
	Tool    string
	Backend string
	Model   string // as the backend names it; "" when it does not
	Usage   backend.Usage
}

// spending sums the runs of one call as they end, by backend and model; Engine.run and the agent's runs add to
// the one in their context.
type spending struct {
	tool  string
	mu    sync.Mutex
	spent []Spent // one per backend and model, in the order first used
}

type spendingKey struct{}

// withSpending is ctx carrying a new spending of a call of tool.
func withSpending(ctx context.Context, tool string) (context.Context, *spending) {
	s := &spending{tool: tool}
	return context.WithValue(ctx, spendingKey{}, s), s
}

// spendingOf is the spending of the call ctx belongs to; nil outside one.
func spendingOf(ctx context.Context) *spending {
	s, _ := ctx.Value(spendingKey{}).(*spending)
	return s
}

// add counts a run that ended with res and err: its usage, or that of the partial answer err carries. A run that
// tells no usage adds nothing.
func (s *spending) add(res backend.Result, err error) {
	if ge := (*backend.Error)(nil); res.Usage == nil && errors.As(err, &ge) {
		res = ge.Partial
	}
	if s == nil || res.Usage == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.spent, func(x Spent) bool { return x.Backend == res.Backend && x.Model == res.Model })
	if i < 0 {
		s.spent = append(s.spent, Spent{Tool: s.tool, Backend: res.Backend, Model: res.Model})
		i = len(s.spent) - 1
	}
	s.spent[i].Usage = *s.spent[i].Usage.Plus(res.Usage)
}

// so is what the call spent so far, by backend and model; nil when no run told its usage.
func (s *spending) so() []Spent {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.spent)
}

// total is spent summed; nil for none.
func total(spent []Spent) *backend.Usage {
	var sum *backend.Usage
	for _, sp := range spent {
		sum = sum.Plus(&sp.Usage)
	}
	return sum
}
