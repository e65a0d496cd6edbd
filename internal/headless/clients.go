package headless

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/app"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/clients"
)

// clientList names the clients for the usage texts, over lines of at most 100 characters.
var clientList = wrap(strings.Join(clients.IDs, ", "), 100-len("Clients: "), "\n  ")

// wrap breaks text at spaces into lines of at most width characters, joined by sep.
func wrap(text string, width int, sep string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines, line = append(lines, line), ""
		}
		line = strings.TrimPrefix(line+" "+word, " ")
	}
	return strings.Join(append(lines, line), sep)
}

// clientsCommand runs `connect [--list]`, `connect <client> [--print] [--yes] [--project DIR]` and
// `disconnect <client> [--yes] [--project DIR]` for people without a tray. A change is shown as a diff first, and
// written when the person says yes (asked on a terminal, interactive) or with --yes; without either nothing is
// written. The server's --host and --port (which make the entry's address) are taken after the command too:
// `connect cursor --port 3100`.
func clientsCommand(command string, src app.Source, args []string, interactive bool, stdin io.Reader,
	stdout, stderr io.Writer) int {
	name := "gemini-search-mcp " + command
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.Usage = func() {
		out := flags.Output()
		if command == "connect" {
			fmt.Fprintf(out, "Usage:\n  %s [--list]\n  %s CLIENT [--yes] [--project DIR] [--host H] [--port P]\n"+
				"  %s CLIENT --print [--host H] [--port P]\n\n", name, name, name)
			fmt.Fprint(out, "Adds this server to the client's configuration file, changing nothing else in it (the old "+
				"file is backed up). The change is shown as a diff and written once you say yes, or with --yes. "+
				"--print only prints the entry; with no client, or --list, it lists each client and its state.\n\n")
		} else {
			fmt.Fprintf(out, "Usage: %s CLIENT [--yes] [--project DIR]\n\nRemoves only this server's entry from the "+
				"client's configuration file, after showing the change as a diff.\n\n", name)
		}
		fmt.Fprintf(out, "Clients: %s.\n\nFlags:\n", clientList)
		flags.PrintDefaults()
	}
	printOnly, list := new(bool), new(bool)
	if command == "connect" {
		printOnly = flags.Bool("print", false, "print the client's entry for this server instead of writing it")
		list = flags.Bool("list", false, "list each client, its state and its file")
	}
	yes := flags.Bool("yes", false, "write the change without asking")
	project := flags.String("project", "", "the project folder whose file to change (\".\" for this one), for "+
		"clients that have one, instead of the user's")
	if src.Flags != nil { // the same variables as before the command, so either place works
		src.Flags.DefineAddr(flags, "the server's HTTP host, for the entry's address (overrides MCP_SERVER_HOST)",
			"the server's HTTP port, for the entry's address (overrides MCP_SERVER_PORT)")
	}
	// Flags may come before or after the client's name.
	var names []string
	for {
		if code, done := parseFlags(flags, args, stdout, stderr); done {
			return code
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
	if len(names) > 1 || (id == "" && (command == "disconnect" || *printOnly || *yes || *project != "")) ||
		(id != "" && *list) {
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
		printClients(stdout, all)
		return 0
	}
	i := slices.Index(clients.IDs, id)
	if i < 0 {
		fmt.Fprintf(stderr, "%s: unknown client %q: one of %s\n", name, id, strings.Join(clients.IDs, ", "))
		return 2
	}
	c := all[i]
	if *printOnly {
		snippet, err := c.Snippet()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		fmt.Fprint(stdout, snippet)
		return 0
	}
	if *project != "" {
		dir, err := filepath.Abs(*project)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", name, err)
			return 1
		}
		inProject, ok := c.InProject(dir)
		if !ok {
			fmt.Fprintf(stderr, "%s: %s has no project file: leave out --project to change %s\n", name, c.Name, c.Path)
			return 2
		}
		c = inProject
	}
	return change(name, command, c, *yes, interactive, stdin, stdout, stderr)
}

// printClients lists each client: its ID, its state and its file, or why the file cannot be read.
func printClients(w io.Writer, all []clients.Client) {
	for _, c := range all {
		if st := c.Status(); st.Err != nil {
			fmt.Fprintf(w, "%-15s %s\n", c.ID, st) // the reason names the file
		} else {
			fmt.Fprintf(w, "%-15s %-28s %s\n", c.ID, st, c.Path)
		}
	}
}

// change plans the command's change to c's file, shows it as a diff, and writes it once confirmed: by --yes, or by
// the person at the terminal. Without a terminal to ask, nothing is written and the message says how to confirm.
func change(name, command string, c clients.Client, yes, interactive bool, stdin io.Reader, stdout, stderr io.Writer) int {
	plan := c.PlanConnect
	if command == "disconnect" {
		plan = c.PlanDisconnect
	}
	ch, err := plan()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	if !ch.Changed() {
		fmt.Fprintf(stdout, "%s: %s (%s): nothing to change\n", c.Name, c.Status(), c.Path)
		return 0
	}
	fmt.Fprint(stdout, ch.Diff())
	switch {
	case yes:
	case !interactive:
		fmt.Fprintf(stderr, "%s: nothing was written: add --yes to the command to write this change\n", name)
		return 1
	default:
		fmt.Fprintf(stdout, "Write this change to %s? [y/N] ", c.Path)
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(stdout, "Nothing was written.")
			return 1
		}
	}
	backup, err := ch.Apply(time.Now())
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
