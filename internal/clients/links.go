package clients

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
)

// InstallLink is the client's one-click install link, "" for a client that has none: opened in a browser, it asks
// Cursor, VS Code or LM Studio to add this server. The bearer header goes into it only when withToken says so: a
// link is a URL, which browsers keep in their history and people paste in chats, so a token is never put there
// unasked.
func (c Client) InstallLink(withToken bool) (string, error) {
	s := c.server
	if !withToken {
		s.AuthToken = ""
	}
	var page string
	var entry any
	switch c.ID {
	case "cursor": // the page opens cursor://anysphere.cursor-deeplink/mcp/install with the same query
		page, entry = "https://cursor.com/install-mcp", cursor(Platform{}, s).Entry
	case "vscode": // the redirect opens vscode:mcp/install?<the entry and its name, as URL-encoded JSON>
		page, entry = "https://vscode.dev/redirect/mcp/install", vsCodeEntry(s)
	case "lm-studio": // the page opens lmstudio://add_mcp with the same query
		page, entry = "https://lmstudio.ai/install-mcp", lmStudioEntry(s)
	default:
		return "", nil
	}
	config, err := json.Marshal(entry)
	if err != nil {
		return "", err
	}
	if c.ID != "vscode" {
		config = []byte(base64.StdEncoding.EncodeToString(config))
	}
	return page + "?name=" + url.QueryEscape(serverName) + "&config=" + url.QueryEscape(string(config)), nil
}

// NeedsToken reports whether the server asks its clients for a bearer token (MCP_AUTH_TOKEN): an install link
// without it adds an entry the server refuses.
func (c Client) NeedsToken() bool { return c.server.AuthToken != "" }
