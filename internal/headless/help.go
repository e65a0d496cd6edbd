package headless

import (
	"bytes"
	"errors"
	"flag"
	"io"
)

// HelpOutput is where a command's flags print their usage: it holds what the flag package prints while arguments
// are parsed until Release says where it belongs, the help that -h or --help asked for on stdout (so that
// `--help | less` shows it) and a usage error on stderr. Once released it writes to stderr: a usage printed later
// follows an error.
type HelpOutput struct {
	held     bytes.Buffer
	stderr   io.Writer
	released bool
}

// NewHelpOutput returns a HelpOutput whose errors go to stderr.
func NewHelpOutput(stderr io.Writer) *HelpOutput { return &HelpOutput{stderr: stderr} }

func (o *HelpOutput) Write(p []byte) (int, error) {
	if o.released {
		return o.stderr.Write(p)
	}
	return o.held.Write(p)
}

// Release writes what was held: to stdout when the parse asked for help, to stderr otherwise.
func (o *HelpOutput) Release(help bool, stdout io.Writer) {
	w := o.stderr
	if help {
		w = stdout
	}
	_, _ = w.Write(o.held.Bytes())
	o.held.Reset()
	o.released = true
}

// parseFlags parses args with flags, whose usage goes to stdout for -h and --help (exit 0) and to stderr after a
// usage error (exit 2); done says the command ends there with code.
func parseFlags(flags *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, done bool) {
	out := NewHelpOutput(stderr)
	flags.SetOutput(out)
	err := flags.Parse(args)
	help := errors.Is(err, flag.ErrHelp)
	out.Release(help, stdout)
	switch {
	case help:
		return 0, true
	case err != nil:
		return 2, true
	}
	return 0, false
}
