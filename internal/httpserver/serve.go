package httpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// shutdownGrace bounds how long Serve waits for requests to finish after ctx is cancelled. The servers answer their
// tool calls first (the App ends its calls), so what is left is quick requests and slow clients, which must not
// hold a stop.
const shutdownGrace = 2 * time.Second

// Limits on clients, so that a flood of connections, or clients that never finish a request, cannot exhaust the
// file descriptors or pin goroutines.
const (
	maxConnections    = 1024             // far more than local MCP clients open; see connLimit for what happens past it
	readHeaderTimeout = 10 * time.Second // to send a request's headers
	readTimeout       = time.Minute      // to send a whole request, body included (at most 1 MiB)
	idleTimeout       = 2 * time.Minute  // a keep-alive connection between requests
)

// Serve serves h on ln until ctx is cancelled, then cancels every in-flight request and shuts down.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	return serve(ctx, ln, h, maxConnections)
}

// serve is Serve with at most maxConns connections open at once.
func serve(ctx context.Context, ln net.Listener, h http.Handler, maxConns int) error {
	reqCtx, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	limited := limitConns(ln, maxConns)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout, // Streams are not cut: net/http lifts it once the body is read.
		IdleTimeout:       idleTimeout,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ConnState:         limited.track,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(limited) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve http: %w", err)
	case <-ctx.Done():
	}
	cancelRequests()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shut down http: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	return nil
}
