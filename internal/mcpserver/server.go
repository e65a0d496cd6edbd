// Package mcpserver is the MCP transport: it serves the tools (internal/tools) over stdio and Streamable HTTP, with
// the HTTP guard's rules, the sessions, the event store that lets a client resume a stream, and MCP tasks.
package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver/tasks"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// serverName is the server name announced to MCP clients.
const serverName = "gemini-search-mcp"

// Options configure the MCP server.
type Options struct {
	Version string
	// Lifetime ends when the server shuts down. Work that outlives its request (an MCP task's research) is
	// cancelled then; nil: only tasks/cancel ends it.
	Lifetime context.Context
	// Sweeper runs the sweep of the task results; nil: results go only as their tasks' TTLs run out or others need
	// room.
	Sweeper tools.Sweeper
}

// New returns an MCP server of the tools of t.
func New(t *tools.Tools, o Options) *server.MCPServer {
	all := t.ServerTools()
	taskTools := map[string]bool{}
	for _, st := range all {
		taskTools[st.Tool.Name] = st.Tool.Execution != nil && st.Tool.Execution.TaskSupport != mcp.TaskSupportForbidden
	}
	taskCalls := tasks.New(o.Lifetime, taskTools)
	if o.Sweeper != nil {
		o.Sweeper.Add(taskCalls.Held)
	}
	hooks := taskCalls.Hooks()
	hooks.AddAfterListResources(t.ListReports) // the reports are the library's, not the server's: listed as it pages
	s := server.NewMCPServer(serverName, o.Version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		// Long deep searches can run as MCP Tasks, so a client's own request timeout does not waste the run.
		server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(taskCalls.TaskHooks()),
		server.WithHooks(hooks),
		server.WithInstructions(tools.Instructions),
	)
	for _, st := range all {
		s.AddTool(st.Tool, taskCalls.Outcome(st.Handler))
	}
	s.AddResourceTemplates(t.ReportResource())
	return s
}
