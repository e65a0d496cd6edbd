package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/loopback"
)

// Flags are the command-line flags both binaries take: where to serve, and --version. A binary adds its own to
// FlagSet before Parse.
type Flags struct {
	*flag.FlagSet
	host        *string
	port        *int
	showVersion *bool
}

// NewFlags returns the flags of the binary name, printing usage (then the flags) for -h.
func NewFlags(name, usage string, stderr io.Writer) *Flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return &Flags{
		FlagSet:     fs,
		host:        fs.String("host", "", "HTTP host to bind (overrides MCP_SERVER_HOST)"),
		port:        fs.Int("port", -1, "HTTP port (overrides MCP_SERVER_PORT; 0 picks a free port)"),
		showVersion: fs.Bool("version", false, "print the version and exit"),
	}
}

// Parse parses args. When it returns done, the binary exits with code: -h, --version, or a usage error.
func (f *Flags) Parse(args []string, version string, stdout io.Writer) (code int, done bool) {
	if err := f.FlagSet.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		return 2, true
	}
	if *f.showVersion {
		fmt.Fprintln(stdout, f.Name(), version)
		return 0, true
	}
	if err := f.CheckPort(0); err != nil {
		fmt.Fprintf(f.Output(), "%s: %v\n", f.Name(), err)
		return 2, true
	}
	return 0, false
}

// CheckPort says why --port, when given, is not a port from lowest to 65535: 0 asks a server for any free port,
// which a client's config cannot name.
func (f *Flags) CheckPort(lowest int) error {
	if p := *f.port; p != -1 && (p < lowest || p > 65535) {
		return fmt.Errorf("invalid --port %d: must be between %d and 65535", p, lowest)
	}
	return nil
}

// DefineAddr defines --host and --port on fs too, with these descriptions, setting the same values as f's: a
// command takes them after its name as well (`connect cursor --port 3100`).
func (f *Flags) DefineAddr(fs *flag.FlagSet, hostUsage, portUsage string) {
	fs.StringVar(f.host, "host", *f.host, hostUsage)
	fs.IntVar(f.port, "port", *f.port, portUsage)
}

// override applies --host and --port, when given, to c, and marks what they set as overridden, so the settings
// page says why the value in .env is not the one in force.
func (f *Flags) override(c *config.Config) {
	if *f.host != "" {
		c.Host = *f.host
		c.SetByFlag("MCP_SERVER_HOST", "--host", *f.host)
	}
	if *f.port >= 0 {
		c.Port = *f.port
		c.SetByFlag("MCP_SERVER_PORT", "--port", strconv.Itoa(*f.port))
	}
}

// Source is where a binary's configuration comes from: the process environment, the config dir's .env file and
// the command-line flags. Its loads give the configuration the app runs with, checked as the app checks it at
// start, or say why the app would refuse it: the start, a reload and a save on the settings page share them.
type Source struct {
	Env   config.Env
	Flags *Flags // nil: no flags
	Stdio bool   // serves stdio only: the HTTP host is not checked
}

// Load loads the configuration from the environment, the .env file and the flags.
func (s Source) Load() (config.Config, error) {
	return s.checked(config.Load(s.Env))
}

// LoadDotenv is Load with data standing in for the .env file: what the app would run with once data is written
// there. Every value of data must be valid, even one the environment overrides today.
func (s Source) LoadDotenv(data []byte) (config.Config, error) {
	return s.checked(config.LoadWithDotenv(s.Env, data))
}

func (s Source) checked(cfg config.Config, err error) (config.Config, error) {
	if err != nil {
		return config.Config{}, err
	}
	if s.Flags != nil {
		s.Flags.override(&cfg)
	}
	if !s.Stdio {
		if err := CheckExposure(cfg); err != nil {
			return config.Config{}, err
		}
	}
	return cfg, nil
}

// errExposed refuses to serve beyond this machine without a token.
var errExposed = errors.New("refusing to serve on a non-loopback host without a token: anyone on the network " +
	"could run searches on your account; set MCP_AUTH_TOKEN or bind 127.0.0.1")

// CheckExposure returns errExposed when cfg serves a non-loopback host without MCP_AUTH_TOKEN: the rule `--http`
// refuses a configuration by, which doctor checks too.
func CheckExposure(cfg config.Config) error {
	if !loopback.IsHost(cfg.Host) && cfg.AuthToken == "" {
		return fmt.Errorf("%w (MCP_SERVER_HOST=%s)", errExposed, cfg.Host)
	}
	return nil
}
