package app

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/loopback"
)

// serverFlags are the flags both binaries take: where to serve, and --version.
type serverFlags struct {
	fs          *flag.FlagSet
	host        *string
	port        *int
	showVersion *bool
}

// newServerFlags returns a flag set named name that prints usage (then the flags) for -h.
func newServerFlags(name, usage string, stderr io.Writer) *serverFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return &serverFlags{
		fs:          fs,
		host:        fs.String("host", "", "HTTP host to bind (overrides MCP_SERVER_HOST)"),
		port:        fs.Int("port", -1, "HTTP port (overrides MCP_SERVER_PORT; 0 picks a free port)"),
		showVersion: fs.Bool("version", false, "print the version and exit"),
	}
}

// parse parses args. When it returns done, the binary exits with code: -h, --version, or a usage error.
func (f *serverFlags) parse(args []string, version string, stdout io.Writer) (code int, done bool) {
	if err := f.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	if *f.showVersion {
		fmt.Fprintln(stdout, f.fs.Name(), version)
		return 0, true
	}
	if *f.port < -1 || *f.port > 65535 {
		fmt.Fprintf(f.fs.Output(), "%s: invalid --port %d: must be between 0 and 65535\n", f.fs.Name(), *f.port)
		return 2, true
	}
	return 0, false
}

// override applies --host and --port, when given, to c, and marks what they set as overridden, so the settings
// page says why the value in .env is not the one in force.
func (f *serverFlags) override(c *config.Config) {
	if *f.host != "" {
		c.Host = *f.host
		c.SetByFlag("MCP_SERVER_HOST", "--host")
	}
	if *f.port >= 0 {
		c.Port = *f.port
		c.SetByFlag("MCP_SERVER_PORT", "--port")
	}
}

// errExposed refuses to serve beyond this machine without a token.
var errExposed = errors.New("refusing to serve on a non-loopback host without a token: anyone on the network " +
	"could run searches on your account; set MCP_AUTH_TOKEN or bind 127.0.0.1")

// checkExposure returns errExposed when cfg serves a non-loopback host without MCP_AUTH_TOKEN.
func checkExposure(cfg config.Config) error {
	if !loopback.IsHost(cfg.Host) && cfg.AuthToken == "" {
		return fmt.Errorf("%w (MCP_SERVER_HOST=%s)", errExposed, cfg.Host)
	}
	return nil
}
