package app

import (
	"io"
	"log/slog"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/logging"
)

// RouteStandardLog sends what is written with the standard log package (the Gemini API SDK writes some errors so)
// into logger at DEBUG, so that it keeps the log's format and never reaches stdout. It changes the process's
// default logger: only a binary's main calls it.
func RouteStandardLog(logger *slog.Logger) {
	slog.SetDefault(logger)
	slog.SetLogLoggerLevel(slog.LevelDebug)
}

// Start is the start-up both binaries share once their flags are parsed: it loads the configuration from src (what
// the app would refuse is refused here), makes the logger on logOut at the level DEBUG asks for, and builds the
// App, which logs what its setup lacks. A failure is logged on logOut before it is returned.
func Start(src Source, logOut io.Writer, o Options) (*App, *slog.Logger, error) {
	cfg, err := src.Load()
	if err != nil {
		logger := logging.New(logOut, false)
		logger.Error("cannot start: " + err.Error())
		return nil, logger, err
	}
	logger := logging.New(logOut, cfg.Debug)
	o.Logger, o.Env = logger, src.Env
	a, err := New(cfg, o)
	if err != nil {
		logger.Error("cannot start", "err", err)
		return nil, logger, err
	}
	return a, logger, nil
}
