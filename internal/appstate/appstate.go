// Package appstate is the App's state at one moment, as every view reads it: the tray's menu, the pages, and the
// status that ping and /healthz answer. It holds plain values and imports no backend, so that a view reads the
// whole app through it without importing the engine, the runners or the Gemini API SDK.
package appstate

import (
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/httpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// State is the App's state at one moment.
type State struct {
	Version  string
	Config   config.Config      // the configuration in force
	Server   httpserver.Status  // the MCP server over HTTP, its Backend filled in; Stopped when it serves stdio
	Backend  backend.State      // which backend serves research and why, and how many CLIs are warm
	CLI      string             // how the Gemini CLI is started; "" when none was found
	SignedIn bool               // the Gemini CLI has a sign-in of its own
	Setup    []checklist.Check  // what the setup checks find wrong with the configuration in force
	Activity activity.Snapshot  // the searches running and the last errors
	Running  int                // research runs holding a place in the queue
	Queued   int                // research runs waiting for one
	Recent   []record.Summary   // the newest reports of the history, newest first, at most RecentMax
	Kept     int                // the reports the history keeps
	Usage    *record.UsageMeter // what the research used today and this month; nil without a library
}

// RecentMax is how many reports Recent holds at most: as many as the status page lists.
const RecentMax = 50
