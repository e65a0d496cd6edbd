package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// The stdio server's tool-call workers and queue: mcp-go's maximums.
const (
	stdioWorkers = 100
	stdioQueue   = 10000
)

// ServeStdio serves MCP over in and out until in ends or ctx is cancelled. Running searches are cancelled, and
// their processes ended, before it returns. Nothing else may write to out. Its calls may write output_file
// anywhere: the client is a process the user started on this machine.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// mcp-go runs stdio tool calls on 5 workers by default: a sixth call, even an instant fetch_chunk, would wait
	// behind a whole search. The library's largest pool and queue leave the research queue as the only limit on
	// research (GEMINI_MAX_CONCURRENT is at most 32) and let other calls through.
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	for _, option := range []server.StdioOption{server.WithWorkerPoolSize(stdioWorkers), server.WithQueueSize(stdioQueue)} {
		option(stdio)
	}
	filtered, stop := withoutTimeouts(in)
	defer stop()
	err := stdio.Listen(tools.WithStdio(ctx), filtered, out)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
