package httpserver

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func TestServerLifecycle(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()

	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	s := New(h, busy.Addr().String(), slog.New(slog.DiscardHandler))
	if st := s.Status(); st.State != Stopped {
		t.Fatalf("new server state %v, want stopped", st.State)
	}

	changed := s.Changed()
	if err := s.Start(); err == nil {
		t.Fatal("Start on a busy port succeeded")
	}
	st := s.Status()
	if st.State != Failed || !strings.Contains(st.Err.Error(), "already in use") {
		t.Fatalf("got %v %v, want failed: already in use", st.State, st.Err)
	}
	var le *ListenError
	if _, port, _ := net.SplitHostPort(busy.Addr().String()); !errors.As(st.Err, &le) || le.Reason != "port "+port+" is already in use by another program" {
		t.Errorf("got %v, want a *ListenError saying port %s is in use", st.Err, port)
	}
	select {
	case <-changed:
	default:
		t.Error("Changed not closed after a failed start")
	}

	s.SetAddr("127.0.0.1:0")
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	st = s.Status()
	if st.State != Running || st.Err != nil || strings.HasSuffix(st.Addr, ":0") {
		t.Fatalf("got %+v, want running on a real port", st)
	}
	if err := s.Start(); err != nil {
		t.Errorf("second Start: %v", err)
	}
	get := func() error {
		c := http.Client{Transport: testkit.Client.Transport, Timeout: testkit.WaitLimit} // a hang bound: a stopped server refuses at once
		resp, err := c.Get("http://" + st.Addr + "/")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(); err != nil {
		t.Fatalf("GET while running: %v", err)
	}
	if got, want := st.URL(), "http://"+st.Addr+"/mcp"; got != want {
		t.Errorf("URL %s, want %s", got, want)
	}

	s.Stop()
	if st := s.Status(); st.State != Stopped {
		t.Errorf("after Stop: %v, want stopped", st.State)
	}
	if err := get(); err == nil {
		t.Error("GET after Stop succeeded")
	}
	s.Stop() // twice is fine

	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.State != Running {
		t.Errorf("after Restart: %v, want running", st.State)
	}
	addr := s.Status().Addr
	s.Close()
	if err := s.Restart(); err == nil {
		t.Error("Restart after Close succeeded")
	}
	if err := s.Start(); err == nil {
		t.Error("Start after Close succeeded")
	}
	if st := s.Status(); st.State != Stopped {
		t.Errorf("after Close: %v, want stopped", st.State)
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after Close", addr)
	}
	s.Close() // twice is fine
}

// A client that never finishes sending its body does not hold a stop: Stop closes its connection once the
// shutdown grace is over. (Before, it held Stop 8 s, for the body's read timeout; how long Stop takes is for a
// benchmark to tell, not a test on a machine that may be loaded.)
func TestSlowBodyDoesNotHoldStop(t *testing.T) {
	t.Parallel()
	reading := make(chan struct{})
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(reading)
		_, _ = io.ReadAll(r.Body) // as the MCP handler reads a body
	})
	s := New(h, "127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", s.Status().Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"); err != nil {
		t.Fatal(err)
	}
	<-reading
	stopped := make(chan struct{})
	go func() { s.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("Stop still waits for the slow client after %v", testkit.WaitLimit)
	}
	_ = conn.SetReadDeadline(time.Now().Add(testkit.WaitLimit))
	if _, err := io.ReadAll(conn); errors.Is(err, os.ErrDeadlineExceeded) { // EOF, or a reset: closed either way
		t.Errorf("the slow client's connection is still open after Stop")
	}
}

// TestStartOn: a server started on a listener the caller opened serves there, stops like any other, and takes no
// listener once closed.
func TestStartOn(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })
	s := New(h, "127.0.0.1:1", slog.New(slog.DiscardHandler))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartOn(ln); err != nil {
		t.Fatal(err)
	}
	if st := s.Status(); st.State != Running || st.Addr != ln.Addr().String() {
		t.Fatalf("got %v on %s, want running on %s", st.State, st.Addr, ln.Addr())
	}
	res, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "hello" {
		t.Errorf("got %q, want hello", body)
	}
	s.Close()
	if st := s.Status(); st.State != Stopped {
		t.Errorf("after Close: %v, want stopped", st.State)
	}
	again, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.StartOn(again); !errors.Is(err, ErrClosed) {
		t.Errorf("StartOn after Close: %v, want ErrClosed", err)
	}
	if _, err := net.Dial("tcp", again.Addr().String()); err == nil {
		t.Error("the listener given after Close is still open")
	}
}
