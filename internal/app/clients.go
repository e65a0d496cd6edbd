package app

import (
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
