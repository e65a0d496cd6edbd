package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Session limits. A session lives until its client ends it (DELETE) or goes quiet: sessionIdle after its last
// request ended, the server forgets it (the sweep, every minute or so, or room), as it does one that was deleted.
// A request in progress (a call, however long, or a listening stream) keeps its session alive. Most clients never
// end their sessions (the TypeScript SDK's close() sends no DELETE), so when maxSessions are live, a new one takes
// the place of the least recently used one with no request in progress and no task running.
//
// sessionIdle is long on purpose. The TypeScript and Python SDKs do not start a new session on the 404 that a
// forgotten one gets (typescript-sdk#1708, python-sdk#3556): their clients fail until restarted, so a shorter limit
// would break a client whose user only paused. And an idle session holds little once its streams' events are
// dropped (streamLinger): mcp-go's state, about sessionBytes.
const (
	sessionIdle  = 30 * time.Minute
	maxSessions  = 1000     // live at once; more clients than anyone runs on one machine
	sessionBytes = 10 << 10 // what mcp-go keeps of a session, about: mostly its notification channel's buffer
)

// errUnknownSession is Validate's answer for an id this server did not issue, or has forgotten: mcp-go answers 404,
// which tells the client to start a new session.
var errUnknownSession = errors.New("unknown or ended session")

// sessions issues and keeps the Streamable HTTP session ids (mcp-go's SessionIdManager): ids it never issued are
// refused, a DELETE ends a session for good, idle ones are forgotten, and their number is bounded. mcp-go's own
// managers either accept any id or remember every ended one forever.
type sessions struct {
	end     func(id string)      // drops the session's state in mcp-go, as a DELETE does
	ended   func(id string)      // told that a session is over (HTTPOptions.SessionEnded); nil: nobody is
	working func(id string) bool // whether a session's task runs (HTTPOptions.Working); nil: none does
	now     func() time.Time

	mu   sync.Mutex
	live map[string]*session
}

type session struct {
	busy int       // requests in progress
	last time.Time // when the last request ended, or the session began
}

func newSessions(ended func(id string), working func(id string) bool) *sessions {
	if working == nil {
		working = func(string) bool { return false }
	}
	return &sessions{ended: ended, working: working, now: time.Now, live: map[string]*session{}}
}

// Generate issues a new session id.
func (s *sessions) Generate() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	id := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[id] = &session{last: s.now()}
	return id
}

// Validate accepts the ids of live sessions only.
func (s *sessions) Validate(id string) (isTerminated bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.live[id]; !ok {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends a session (a DELETE, or forgetting an idle one).
func (s *sessions) Terminate(id string) (isNotAllowed bool, err error) {
	s.mu.Lock()
	_, ok := s.live[id]
	delete(s.live, id)
	s.mu.Unlock()
	if ok && s.ended != nil {
		s.ended(id)
	}
	return false, nil
}

// begin marks a request of session id in progress until the returned func is called; an unknown id is left to
// mcp-go to refuse.
func (s *sessions) begin(id string) (done func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.live[id]
	if !ok {
		return func() {}
	}
	st.busy++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		st.busy--
		st.last = s.now()
	}
}

// room makes room for a new session and reports whether there is: it forgets the sessions idle for longer than
// sessionIdle and, while maxSessions or more are still live (initializes that were let in together may have
// passed it), the least recently used ones with no request in progress. A session whose task runs is neither: its
// client polls for the result. There is no room only when every session has a request in progress or a task
// running. A forgotten session is gone at once: a request of it that arrives meanwhile finds it unknown, and its
// client starts anew.
func (s *sessions) room() bool {
	s.mu.Lock()
	gone := s.forgetLocked(s.now(), 1)
	room := len(s.live) < maxSessions
	s.mu.Unlock()
	s.endAll(gone)
	return room
}

// sweep forgets the sessions idle for longer than sessionIdle at now, as room does, so that they and what they
// hold (their streams' events, their tasks' results, mcp-go's state) go when no new client comes too. It returns
// what mcp-go holds of the sessions still live, about.
func (s *sessions) sweep(now time.Time) (held int) {
	s.mu.Lock()
	gone := s.forgetLocked(now, 0)
	live := len(s.live)
	s.mu.Unlock()
	s.endAll(gone)
	return live * sessionBytes
}

// forgetLocked takes out of live, and returns, the sessions idle for longer than sessionIdle at now and, while
// more than maxSessions-more would be live, the least recently used ones with no request in progress; neither
// goes while its task runs. s.mu is held.
func (s *sessions) forgetLocked(now time.Time, more int) (gone []string) {
	var quiet []string // neither busy nor idle for too long
	for id, st := range s.live {
		switch {
		case st.busy > 0 || s.working(id):
		case now.Sub(st.last) > sessionIdle:
			gone = append(gone, id)
			delete(s.live, id)
		default:
			quiet = append(quiet, id)
		}
	}
	if excess := len(s.live) - maxSessions + more; excess > 0 {
		slices.SortFunc(quiet, func(a, b string) int { return s.live[a].last.Compare(s.live[b].last) })
		for _, id := range quiet[:min(excess, len(quiet))] {
			gone = append(gone, id)
			delete(s.live, id)
		}
	}
	return gone
}

// endAll ends the sessions forgotten, which are no longer live.
func (s *sessions) endAll(gone []string) {
	for _, id := range gone {
		s.end(id) // mcp-go drops its state; its Terminate finds the session gone
		if s.ended != nil {
			s.ended(id) // its calls and detached tasks, if any, stop
		}
	}
}

// initialized ends in mcp-go session id, just initialized, if it is no longer live: room ended it to make room for
// another while its initialize was answered, before mcp-go registered it.
func (s *sessions) initialized(id string) {
	s.mu.Lock()
	_, live := s.live[id]
	s.mu.Unlock()
	if id != "" && !live {
		s.end(id)
	}
}

// deleter returns a func that ends a session in h, mcp-go's handler, the way a client's DELETE does, so that all
// of the session's state goes with it.
func deleter(h http.Handler) func(id string) {
	return func(id string) {
		req, err := http.NewRequestWithContext(context.Background(), http.MethodDelete, "http://127.0.0.1/mcp", nil)
		if err != nil {
			return
		}
		req.Header.Set(server.HeaderKeySessionID, id)
		h.ServeHTTP(discard{header: http.Header{}}, req)
	}
}

// discard is a ResponseWriter that drops what is written: the answer to a DELETE the server sends itself.
type discard struct{ header http.Header }

func (d discard) Header() http.Header       { return d.header }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
