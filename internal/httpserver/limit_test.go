package httpserver

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// serveOn serves h on ln with at most maxConns connections until the test ends, and returns its address.
func serveOn(t *testing.T, ln net.Listener, h http.Handler, maxConns int) string {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, ln, h, maxConns) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	})
	return ln.Addr().String()
}

// keepAlive opens a connection to addr, sends one request on it and reads the answer, and leaves it open and idle,
// as an HTTP client keeps connections for reuse.
func keepAlive(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hang fails, not the test's whole timeout
	defer c.SetDeadline(time.Time{})
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: "+addr+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return c
}

func ok(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }

// get GETs url on a new connection; a hang fails after 30 s, not the test's whole timeout.
func get(url string) (int, error) {
	c := http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Get(url)
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return res.StatusCode, nil
}

// pipes is a listener whose connections are in-memory pipes.
type pipes chan net.Conn

func (p pipes) Accept() (net.Conn, error) { return <-p, nil }
func (p pipes) Close() error              { return nil }
func (p pipes) Addr() net.Addr            { return &net.TCPAddr{} }

// dial connects to p and returns the client's end.
func (p pipes) dial() net.Conn {
	server, client := net.Pipe()
	p <- server
	return client
}

// At the limit, a new connection takes the place of the keep-alive connection idle for longest, which is closed.
func TestNewConnectionClosesTheLongestIdle(t *testing.T) {
	t.Parallel()
	p := make(pipes, 1)
	l := limitConns(p, 2)
	l.minIdle = 0
	var clients, conns []net.Conn
	for range 3 {
		clients = append(clients, p.dial())
		if len(conns) == 2 { // the limit: both go idle, the second first
			l.track(conns[1], http.StateIdle)
			l.track(conns[0], http.StateIdle)
		}
		c, err := l.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if _, err := clients[1].Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the connection idle for longest: read %v, want EOF (closed by the server)", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, idle := l.idle[conns[0].(*limitedConn)]; !idle || l.open != 2 {
		t.Errorf("open %d, the other idle connection kept: %v; want 2, true", l.open, idle)
	}
}

// A keep-alive connection that went idle only just is not closed to make room (its client may be sending a request
// on it this moment): the new connection waits until the connection has been idle for minIdle.
func TestAJustIdleConnectionIsNotClosed(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	p := make(pipes, 1)
	l := limitConns(p, 1)
	l.minIdle = time.Hour
	l.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	first := p.dial()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	l.track(c, http.StateIdle)
	p.dial()
	accepted := make(chan net.Conn, 1)
	go func() { c, _ := l.Accept(); accepted <- c }()
	_ = first.SetReadDeadline(time.Now().Add(100 * time.Millisecond)) // a stand-in for "not at once"
	if _, err := first.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the just idle connection: read %v, want it left open", err)
	}
	mu.Lock()
	clock = clock.Add(time.Hour)
	mu.Unlock()
	l.mu.Lock()
	l.signalLocked() // as another connection's change would
	l.mu.Unlock()
	_ = first.SetReadDeadline(time.Time{})
	if _, err := first.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("the connection idle for minIdle: read %v, want EOF (closed for the new one)", err)
	}
	if c := <-accepted; c == nil {
		t.Error("the new connection was not accepted")
	}
}

// Connections with a request in progress are never closed to make room: a new one waits until one ends.
func TestBusyConnectionsMakeNewOnesWait(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}), make(chan struct{})
	var released atomic.Bool
	mux := http.NewServeMux()
	mux.HandleFunc("/busy", func(http.ResponseWriter, *http.Request) {
		close(started)
		<-release
	})
	servedAfterRelease := make(chan bool, 1)
	mux.HandleFunc("/next", func(w http.ResponseWriter, _ *http.Request) { servedAfterRelease <- released.Load() })
	ln := acceptSignal{listen(t), make(chan struct{}, 2)}
	addr := serveOn(t, ln, mux, 1)
	busy := make(chan error, 1)
	go func() { _, err := get("http://" + addr + "/busy"); busy <- err }()
	<-started
	next := make(chan error, 1)
	go func() { _, err := get("http://" + addr + "/next"); next <- err }()
	<-ln.accepted
	<-ln.accepted // the second connection is in the server's hands
	released.Store(true)
	close(release)
	if err := <-busy; err != nil {
		t.Errorf("the busy request: %v", err)
	}
	if err := <-next; err != nil {
		t.Fatalf("the request that waited: %v", err)
	}
	if !<-servedAfterRelease {
		t.Error("a new connection was served while the only connection allowed was busy")
	}
}

// acceptSignal tells of each connection it accepts.
type acceptSignal struct {
	net.Listener
	accepted chan struct{}
}

func (l acceptSignal) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.accepted <- struct{}{}
	}
	return c, err
}

// However many keep-alive connections clients leave idle, /healthz answers: before, 1,024 of them kept it waiting
// for their idle timeout, 2 minutes.
func TestIdleConnectionsDoNotLockOutHealthz(t *testing.T) {
	t.Parallel()
	const idle = 2000
	ensureFiles(t, idle+maxConnections+100) // the clients' ends, the server's, and some to spare
	mux := http.NewServeMux()
	mux.HandleFunc("/", ok)
	mux.HandleFunc("GET /healthz", ok)
	ln := listen(t)
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, mux) }()
	defer func() {
		stop()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()
	addr := ln.Addr().String()
	for range idle {
		keepAlive(t, addr)
	}
	if code, err := get("http://" + addr + "/healthz"); err != nil || code != http.StatusOK {
		t.Errorf("/healthz after %d idle keep-alive connections: %d, %v", idle, code, err)
	}
}
