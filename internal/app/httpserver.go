package app

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver"
)

// ServerState is what an HTTPServer is doing.
type ServerState int

// Server states.
const (
	ServerStopped ServerState = iota // not started, or stopped on request
	ServerRunning                    // serving
	ServerFailed                     // could not start, or stopped by an error; Err says why
)

// ServerStatus is an HTTPServer's state at one moment.
type ServerStatus struct {
	State ServerState
	Addr  string // the address it listens on when running, else the one it would listen on
	Err   error  // why it is down, for ServerFailed
}

// URL is the MCP endpoint, http://<addr>/mcp.
func (s ServerStatus) URL() string { return "http://" + s.Addr + "/mcp" }

// HTTPServer serves one handler on a TCP address and can be started, stopped and restarted, moved to another
// address (SetAddr), and asked how it is doing (Status, Changed). Failing to listen is a state, not the end:
// the tray stays up and shows why. Safe for concurrent use.
type HTTPServer struct {
	handler http.Handler
	log     *slog.Logger

	op     sync.Mutex // serializes Start, Stop, Restart and Close
	closed bool       // Close was called: it never starts again; guarded by op

	mu      sync.Mutex
	addr    string
	status  ServerStatus
	cancel  context.CancelFunc
	done    chan struct{}
	changed chan struct{}
}

// NewHTTPServer returns a stopped server for h on addr (host:port; port 0 picks a free port).
func NewHTTPServer(h http.Handler, addr string, logger *slog.Logger) *HTTPServer {
	return &HTTPServer{handler: h, log: logger, addr: addr, status: ServerStatus{Addr: addr}, changed: make(chan struct{})}
}

// Status returns the current state.
func (s *HTTPServer) Status() ServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.status
}

// Changed returns a channel that is closed at the next change of Status.
func (s *HTTPServer) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

func (s *HTTPServer) setLocked(st ServerStatus) {
	s.status = st
	close(s.changed)
	s.changed = make(chan struct{})
}

// SetAddr sets the address the next Start listens on.
func (s *HTTPServer) SetAddr(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.addr = addr
	if s.status.State != ServerRunning {
		s.setLocked(ServerStatus{State: s.status.State, Addr: addr, Err: s.status.Err})
	}
}

// Start listens and serves; it does nothing when already running. When it cannot listen, the server is left
// ServerFailed with the reason, which is also returned. After Close it returns errClosed.
func (s *HTTPServer) Start() error {
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed {
		return errClosed
	}
	return s.start()
}

// errClosed refuses to start a server that was closed.
var errClosed = errors.New("the server is shutting down")

func (s *HTTPServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status.State == ServerRunning {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		err = listenError(s.addr, err)
		s.log.Error("cannot start the MCP server", "addr", s.addr, "err", err)
		s.setLocked(ServerStatus{State: ServerFailed, Addr: s.addr, Err: err})
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.cancel, s.done = cancel, done
	s.setLocked(ServerStatus{State: ServerRunning, Addr: ln.Addr().String()})
	s.log.Info("serving MCP over HTTP", "url", s.status.URL())
	go func() {
		defer close(done)
		err := mcpserver.Serve(ctx, ln, s.handler)
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
			s.setLocked(ServerStatus{State: ServerFailed, Addr: s.addr, Err: err})
		}
		cancel()
	}()
	return nil
}

// Stop cancels the requests in progress (so running searches end and their processes are killed), shuts the
// server down and waits for it. It does nothing when not running.
func (s *HTTPServer) Stop() {
	s.op.Lock()
	defer s.op.Unlock()
	s.stop()
}

func (s *HTTPServer) stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	if done != nil || s.status.State == ServerFailed {
		s.setLocked(ServerStatus{State: ServerStopped, Addr: s.addr})
	}
	s.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
	s.log.Info("MCP server stopped")
}

// Restart stops the server when it runs and starts it again, on the address last set. After Close it returns
// errClosed.
func (s *HTTPServer) Restart() error {
	s.op.Lock()
	defer s.op.Unlock()
	if s.closed {
		return errClosed
	}
	s.stop()
	return s.start()
}

// Close stops the server for good: a Start or Restart asked for later (by a goroutine that has not heard of the
// shutdown yet) does nothing.
func (s *HTTPServer) Close() {
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
