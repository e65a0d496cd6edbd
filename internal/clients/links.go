package clients

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
)

// Link is a one-click install link: opened in a browser, it asks the client to add this server.
type Link struct {
	Client string // "Cursor"
	URL    string
}

// Links are the install links of the clients that have them (Cursor, VS Code, LM Studio), for the server at
// s.URL. The bearer header goes into them only when withToken says so: a link is a URL, which browsers keep in
// their history and people paste in chats, so a token is never put there unasked.
func Links(s Server, withToken bool) ([]Link, error) {
	if !withToken {
		s.AuthToken = ""
	}
	cursorJSON, err := json.Marshal(entryOf(member{"url", s.URL}, member{"headers", headers(s)}))
	if err != nil {
		return nil, err
	}
	vsCodeJSON, err := json.Marshal(vsCodeEntry(s))
	if err != nil {
		return nil, err
	}
	lmStudioJSON, err := json.Marshal(lmStudioEntry(s))
	if err != nil {
		return nil, err
	}
	base64Config := func(page string, config []byte) string {
		return page + "?" + url.Values{"name": {serverName}, "config": {base64.StdEncoding.EncodeToString(config)}}.Encode()
	}
	return []Link{
		// Cursor's web page opens cursor://anysphere.cursor-deeplink/mcp/install with the same query.
		{"Cursor", base64Config("https://cursor.com/install-mcp", cursorJSON)},
		// VS Code's redirect opens vscode:mcp/install?<the entry and its name, as URL-encoded JSON>.
		{"VS Code", "https://vscode.dev/redirect/mcp/install?" + url.Values{"name": {serverName},
			"config": {string(vsCodeJSON)}}.Encode()},
		// LM Studio's page opens lmstudio://add_mcp with the same query.
		{"LM Studio", base64Config("https://lmstudio.ai/install-mcp", lmStudioJSON)},
	}, nil
}
