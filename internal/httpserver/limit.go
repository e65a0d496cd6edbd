package httpserver

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// minIdle is how long a keep-alive connection must have been idle before a new one may take its place. A client
// may be sending a request on it at the moment it is closed, and a request that is not idempotent (every MCP POST)
// is not retried on a new connection (RFC 9112 §9.3.1): the younger an idle connection, the likelier that is.
const minIdle = time.Second

// connLimit bounds the connections a server holds. At the bound, a new connection takes the place of the keep-alive
// connection idle for longest, which is closed: clients keep idle connections open for reuse, often longer than
// they need them, and a blind limit let 1,024 of them keep every new client (/healthz too) waiting for the idle
// timeout. Only when every connection has a request in progress (or is new: it has readHeaderTimeout to send one)
// does a new one wait to be accepted, so a flood of busy connections still cannot exhaust the file descriptors.
//
// Closing an idle connection may race a request the client sends on it at that moment, which the client may not
// retry: so only one idle for minIdle is closed, and a new connection waits for one to get there.
type connLimit struct {
	net.Listener
	maxConns int
	minIdle  time.Duration
	now      func() time.Time

	mu     sync.Mutex
	open   int
	idle   map[*limitedConn]idleSince // the keep-alive connections between requests, and since when
	seq    uint64                     // counts the connections that went idle: an order, where a clock may tie
	wake   chan struct{}              // a connection closed or went idle
	closed chan struct{}              // the listener was closed
	once   sync.Once
}

// limitConns returns ln with at most maxConns connections open at once. Its track method must be the server's
// ConnState hook.
func limitConns(ln net.Listener, maxConns int) *connLimit {
	return &connLimit{Listener: ln, maxConns: maxConns, minIdle: minIdle, now: time.Now,
		idle: map[*limitedConn]idleSince{}, wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

// idleSince is when a connection went idle: its place in the order, and the time.
type idleSince struct {
	seq uint64
	at  time.Time
}

// Accept accepts a connection and, at the bound, closes the connection idle for longest to make room for it, or
// waits for room. http.Server calls it from one goroutine.
func (l *connLimit) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		l.mu.Lock()
		if l.open < l.maxConns {
			l.open++
			l.mu.Unlock()
			return &limitedConn{Conn: c, limit: l}, nil
		}
		oldest, wait := l.longestIdleLocked()
		l.mu.Unlock()
		if oldest != nil {
			oldest.Close() // frees its place
			continue
		}
		if !l.sleep(wait) {
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// longestIdleLocked takes the connection idle for longest out of the idle ones, if it has been idle for minIdle;
// else it returns how long until it will have been (0 when no connection is idle: then only a wake-up helps).
func (l *connLimit) longestIdleLocked() (*limitedConn, time.Duration) {
	var oldest *limitedConn
	for c, since := range l.idle {
		if oldest == nil || since.seq < l.idle[oldest].seq {
			oldest = c
		}
	}
	if oldest == nil {
		return nil, 0
	}
	if wait := l.idle[oldest].at.Add(l.minIdle).Sub(l.now()); wait > 0 {
		return nil, wait
	}
	delete(l.idle, oldest)
	return oldest, 0
}

// sleep waits for a wake-up (a connection closed or went idle), or d when d > 0, and reports false when the
// listener was closed meanwhile.
func (l *connLimit) sleep(d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-l.wake:
	case <-timeout:
	case <-l.closed:
		return false
	}
	return true
}

func (l *connLimit) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// track is the server's ConnState hook: it keeps the idle connections.
func (l *connLimit) track(c net.Conn, state http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if state == http.StateIdle {
		l.seq++
		l.idle[lc] = idleSince{l.seq, l.now()}
		l.signalLocked()
	} else {
		delete(l.idle, lc)
	}
}

// release frees the place of c, which was closed.
func (l *connLimit) release(c *limitedConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.open--
	delete(l.idle, c)
	l.signalLocked()
}

func (l *connLimit) signalLocked() {
	select {
	case l.wake <- struct{}{}:
	default: // Accept has a wake-up pending already
	}
}

// limitedConn is a connection of a connLimit, whose place is freed when it is closed.
type limitedConn struct {
	net.Conn
	limit *connLimit
	once  sync.Once
}

func (c *limitedConn) Close() error {
	err := net.ErrClosed
	c.once.Do(func() {
		err = c.Conn.Close()
		c.limit.release(c)
	})
	return err
}
