package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"
)

// ServeStdio serves MCP over in and out until in ends or ctx is cancelled. Running searches are cancelled, and
// their processes ended, before it returns. Nothing else may write to out. Its calls may write output_file
// anywhere: the client is a process the user started on this machine.
func ServeStdio(ctx context.Context, s *server.MCPServer, in io.Reader, out io.Writer, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(slog.NewLogLogger(logger.Handler(), slog.LevelError))
	err := stdio.Listen(withStdio(ctx), in, out)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
