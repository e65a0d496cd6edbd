package headless

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
)

// clientsCommand runs `connect [<client> [--print]]` and `disconnect <client>` for people without a tray: with no
// client, connect lists each client and its state. The server's --host and --port (which make the entry's address)
// are taken after the command too: `connect cursor --port 3100`.
func clientsCommand(command string, src app.Source, args []string, stdout, stderr io.Writer) int {
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
		src.Flags.DefineAddr(flags, "the server's HTTP host, for the entry's address (overrides MCP_SERVER_HOST)",
			"the server's HTTP port, for the entry's address (overrides MCP_SERVER_PORT)")
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
		if err := src.Flags.CheckPort(1); err != nil { // a client needs the server's own port
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
	all := app.Clients(cfg, src.Env, "http://"+cfg.Addr()+"/mcp", exe)
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
