// Package httpserver serves an http.Handler on a TCP address: Serve for one listener until a context ends, and
// Server for one that can be started, stopped, restarted and moved while the program runs (the tray's menu), with
// the reason in words when it cannot listen.
package httpserver

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
)

// State is what a Server is doing.
type State int

// Server states.
const (
	Stopped State = iota // not started, or stopped on request
	Running              // serving
	Failed               // could not start, or stopped by an error; Err says why
)

// Status is a Server's state at one moment.
type Status struct {
	State   State
	Addr    string // the address it listens on when running, else the one it would listen on
	Err     error  // why it is down, for Failed
	Backend string // what serves the research behind it, "Gemini API (auto: …)"; set by the views that know
}

// URL is the MCP endpoint, http://<addr>/mcp.
func (s Status) URL() string { return "http://" + s.Addr + "/mcp" }

// Server serves one handler on a TCP address and can be started, stopped and restarted, moved to another
// address (SetAddr), and asked how it is doing (Status, Changed). Failing to listen is a state, not the end:
// the tray stays up and shows why. Safe for concurrent use.
type Server struct {
	handler http.Handler
	log     *slog.Logger

	op     sync.Mutex // serializes Start, Stop, Restart and Close
	closed bool       // Close was called: it never starts again; guarded by op

	mu      sync.Mutex
	addr    string
	status  Status
	cancel  context.CancelFunc
	done    chan struct{}
	changed broadcast.Signal
}

// New returns a stopped server for h on addr (host:port; port 0 picks a free port).
func New(h http.Handler, addr string, logger *slog.Logger) *Server {
	return &Server{handler: h, log: logger, addr: addr, status: Status{Addr: addr}}
}

// Status returns the current state.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Changed returns a channel that is closed at the next change of Status.
func (s *Server) Changed() <-chan struct{} { return s.changed.Changed() }

func (s *Server) setLocked(st Status) {
	s.status = st
	s.changed.Notify()
}

// SetAddr sets the address the next Start listens on.
func (s *Server) SetAddr(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addr = addr
	if s.status.State != Running {
		s.setLocked(Status{State: s.status.State, Addr: addr, Err: s.status.Err})
	}
}

// Start listens and serves; it does nothing when already running. When it cannot listen, the server is left
// Failed with the reason, which is also returned. After Close it returns ErrClosed.
func (s *Server) Start() error {
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.start()
}

// ErrClosed refuses to start a server that was closed.
var ErrClosed = errors.New("the server is shutting down")

// StartOn serves on ln, a listener the caller opened (the headless server's, whose failure to listen ends the
// program), and says nothing of it in the log: the caller says where it serves. It closes ln and does nothing else
// when the server runs already, or was closed (ErrClosed).
func (s *Server) StartOn(ln net.Listener) error {
	s.op.Lock()
	defer s.op.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		ln.Close()
		return ErrClosed
	case s.status.State == Running:
		ln.Close()
		return nil
	}
	s.addr = ln.Addr().String()
	s.serveLocked(ln)
	return nil
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status.State == Running {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		err = listenError(s.addr, err)
		s.log.Error("cannot start the MCP server", "addr", s.addr, "err", err)
		s.setLocked(Status{State: Failed, Addr: s.addr, Err: err})
		return err
	}
	s.serveLocked(ln)
	s.log.Info("serving MCP over HTTP", "url", s.status.URL())
	return nil
}

// serveLocked serves on ln until stop, or until serving fails: the server is then Failed.
func (s *Server) serveLocked(ln net.Listener) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.cancel, s.done = cancel, done
	s.setLocked(Status{State: Running, Addr: ln.Addr().String()})
	go func() {
		defer close(done)
		err := Serve(ctx, ln, s.handler)
		if ctx.Err() != nil { // stopped on request
			if err != nil {
				s.log.Warn("MCP server stopped uncleanly", "err", err)
			}
			return
		}
		s.log.Error("MCP server stopped", "err", err)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.done == done {
			s.cancel, s.done = nil, nil
			s.setLocked(Status{State: Failed, Addr: s.addr, Err: err})
		}
		cancel()
	}()
}

// Stop cancels the requests in progress (so running searches end and their processes are killed), shuts the
// server down and waits for it. It does nothing when not running.
func (s *Server) Stop() {
	s.op.Lock()
	defer s.op.Unlock()
	s.stop()
}

func (s *Server) stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	failed := s.status.State == Failed
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
		s.log.Info("MCP server stopped")
	}
	if cancel != nil || failed {
		// Only now: a server that says it is stopped no longer answers.
		s.mu.Lock()
		s.setLocked(Status{State: Stopped, Addr: s.addr})
		s.mu.Unlock()
	}
}

// Restart stops the server when it runs and starts it again, on the address last set. After Close it returns
// ErrClosed.
func (s *Server) Restart() error {
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.stop()
	return s.start()
}

// Close stops the server for good: a Start or Restart asked for later (by a goroutine that has not heard of the
// shutdown yet) does nothing.
func (s *Server) Close() {
	s.op.Lock()
	defer s.op.Unlock()
	s.closed = true
	s.stop()
}

// ListenError is a failure to listen, with the reason in words for the status line.
type ListenError struct {
	Addr   string
	Reason string // "port 3000 is already in use by another program"
	Err    error
}

func (e *ListenError) Error() string { return e.Reason + ": " + e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }

// listenError says why addr cannot be used.
func listenError(addr string, err error) error {
	_, port, _ := net.SplitHostPort(addr)
	reason := "cannot listen on " + addr
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		reason = "port " + port + " is already in use by another program"
	case errors.Is(err, syscall.EACCES):
		reason = "not allowed to listen on port " + port
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		reason = "address " + addr + " is not on this machine"
	}
	return &ListenError{Addr: addr, Reason: reason, Err: err}
}

// Reason says why the server is down, in words: "port 3000 is already in use by another program"; "" unless it
// failed.
func (s Status) Reason() string {
	if s.State != Failed || s.Err == nil {
		return ""
	}
	var le *ListenError
	if errors.As(s.Err, &le) {
		return le.Reason
	}
	return s.Err.Error()
}

// Line is the status as the tray menu and the status page show it: "Running on http://127.0.0.1:3000/mcp ·
// Gemini CLI (auto)", "Not running: <reason>" or "Stopped".
func (s Status) Line() string {
	switch {
	case s.State == Running && s.Backend != "":
		return "Running on " + s.URL() + " · " + s.Backend
	case s.State == Running:
		return "Running on " + s.URL()
	case s.State == Failed:
		return "Not running: " + s.Reason()
	}
	return "Stopped"
}
