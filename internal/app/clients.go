package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// Clients are the MCP clients' entries for a server of cfg whose MCP endpoint is url, started over stdio as
// stdioCmd (the gemini-search-mcp executable). A stdio entry carries what a client started from the dock does
// not inherit from a shell: the config dir when it is not the default one, and this process's PATH, where the
// Gemini CLI and Node are found.
func Clients(cfg config.Config, env config.Env, url, stdioCmd string) []clients.Client {
	s := clients.Server{URL: url, AuthToken: cfg.AuthToken.Reveal(), StdioCommand: stdioCmd}
	if cfg.Overridden[config.DirVar] {
		s.ConfigDir = cfg.Dir
	}
	if env.Lookup != nil {
		s.Path, _ = env.Lookup("PATH")
	}
	return clients.All(clients.Platform{GOOS: env.GOOS, Home: env.Home, AppData: env.AppData,
		XDGConfigHome: env.XDGConfigHome}, s)
}

// clientsCommand runs `connect [<client> [--print]]` and `disconnect <client>` for people without a tray: with no
// client, connect lists each client and its state. The server's --host and --port (which make the entry's address)
// are taken after the command too: `connect cursor --port 3100`.
func clientsCommand(command string, src Source, args []string, stdout, stderr io.Writer) int {
	name := "gemini-search-mcp " + command
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s %s [--host H] [--port P]\n\n", name, map[string]string{
			"connect":    "[" + strings.Join(clients.IDs, "|") + " [--print]]",
			"disconnect": strings.Join(clients.IDs, "|"),
		}[command])
		fmt.Fprintf(stderr, "connect adds this server to the client's configuration file, changing nothing else in it "+
			"(the old file is backed up), --print only prints the entry; with no client it lists each client and its "+
			"state. disconnect removes only this server's entry.\n\nFlags:\n")
		flags.PrintDefaults()
	}
	printOnly := flags.Bool("print", false, "print the client's configuration for this server instead of writing it")
	if src.Flags != nil { // the same variables as before the command, so either place works
		flags.StringVar(src.Flags.host, "host", *src.Flags.host, "the server's HTTP host, for the entry's address (overrides MCP_SERVER_HOST)")
		flags.IntVar(src.Flags.port, "port", *src.Flags.port, "the server's HTTP port, for the entry's address (overrides MCP_SERVER_PORT)")
	}
	// Flags may come before or after the client's name.
	var names []string
	for {
		if err := flags.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if flags.NArg() == 0 {
			break
		}
		names, args = append(names, flags.Arg(0)), flags.Args()[1:]
	}
	if src.Flags != nil {
		if err := src.Flags.checkPort(1); err != nil { // a client needs the server's own port
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 2
		}
	}
	var id string
	if len(names) > 0 {
		id = names[0]
	}
	if len(names) > 1 || (id == "" && (command == "disconnect" || *printOnly)) {
		flags.Usage()
		return 2
	}
	cfg, err := src.Load()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "%s: find this program: %v\n", name, err)
		return 1
	}
	all := Clients(cfg, src.Env, "http://"+cfg.Addr()+"/mcp", exe)
	if id == "" {
		for i, c := range all {
			if st := c.Status(); st.Err != nil {
				fmt.Fprintf(stdout, "%-15s %s\n", clients.IDs[i], st) // the reason names the file
			} else {
				fmt.Fprintf(stdout, "%-15s %-28s %s\n", clients.IDs[i], st, c.Path)
			}
		}
		return 0
	}
	i := slices.Index(clients.IDs, id)
	if i < 0 {
		fmt.Fprintf(stderr, "%s: unknown client %q: one of %s\n", name, id, strings.Join(clients.IDs, ", "))
		return 2
	}
	c := all[i]
	var backup string
	switch {
	case *printOnly:
		snippet, err := c.Snippet()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		fmt.Fprintln(stdout, snippet)
		return 0
	case command == "connect":
		backup, err = c.Connect(time.Now())
	default:
		backup, err = c.Disconnect(time.Now())
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %s (%s)\n", c.Name, c.Status(), c.Path)
	if backup != "" {
		fmt.Fprintf(stdout, "the file as it was is kept in %s\n", backup)
	}
	return 0
}
