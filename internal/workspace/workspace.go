// Package workspace prepares the folder the Gemini CLI runs in: its
// .gemini/settings.json, rendered from templates/settings.json.tmpl, decides
// which tools the research agent may use.
package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"text/template"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/npm"
	"github.com/gemini-search-mcp/gemini-search-mcp/templates"
)

const settingsTemplate = "settings.json.tmpl"

var settingsTmpl = template.Must(template.ParseFS(templates.FS, settingsTemplate))

// Options chooses what the rendered settings contain. There is deliberately
// no room for a secret: the settings refer to ${FIRECRAWL_API_KEY}, which the
// Gemini CLI expands from its own environment.
type Options struct {
	Firecrawl bool // add the firecrawl MCP server and its three tools
	KeyAuth   bool // select API-key auth (security.auth.selectedType "gemini-api-key")
}

// keyAuth is the auth type KeyAuth selects.
const keyAuth = "gemini-api-key"

// OptionsFor is what settings.json must hold for cfg, given the Gemini CLI's own sign-in login (gemini.Login, which
// the caller reads once for all it builds from cfg): Firecrawl when it is configured, and API-key auth when a Gemini
// API key is configured and the CLI has no sign-in of its own, so that the CLI uses the key instead of answering
// "Invalid auth method selected". The servers and doctor both take their options from here.
func OptionsFor(cfg config.Config, login string) Options {
	key, _ := cfg.APIKey()
	return Options{
		Firecrawl: cfg.FirecrawlEnabled(),
		KeyAuth:   key != "" && login == "",
	}
}

// templateData is what the settings template reads: the options, and the pinned firecrawl-mcp it starts.
type templateData struct {
	Options
	FirecrawlMCP string // firecrawl-mcp@<version>
}

// render returns the settings.json for o: valid JSON, indented with two
// spaces, ending in a newline.
func render(o Options) ([]byte, error) {
	var raw bytes.Buffer
	if err := settingsTmpl.Execute(&raw, templateData{o, npm.FirecrawlMCP}); err != nil {
		return nil, fmt.Errorf("render %s: %w", settingsTemplate, err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(raw.Bytes()), "", "  "); err != nil {
		return nil, fmt.Errorf("render %s: not valid JSON: %w", settingsTemplate, err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// SettingsPath returns the path of the Gemini CLI settings in dir.
func SettingsPath(dir string) string {
	return filepath.Join(dir, ".gemini", "settings.json")
}

// writeNew writes data to path atomically, readable by the owner only.
func writeNew(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o600)
}

// pathError phrases err as "<op> <path>: <reason>", dropping the os error's
// own operation and path. errors.Is still sees the reason.
func pathError(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("%s %s: %w", op, path, err)
}

// Check reads dir's settings.json and reports the first problem, for the
// `doctor` command: a missing file (errors.Is(err, fs.ErrNotExist)), an
// unreadable one, or invalid JSON as "<path>:<line>:<col>: <reason>". Like
// the Gemini CLI, it accepts // and /* */ comments.
func Check(dir string) error {
	path := SettingsPath(dir)
	data, err := os.ReadFile(path)
	if err != nil {
		return pathError("read", path, err)
	}
	data = stripComments(data)
	var settings map[string]any
	err = json.Unmarshal(data, &settings)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		at := syntax.Offset - 1 // Offset counts the bytes read, the offending one included
		if syntax.Error() == "unexpected end of JSON input" {
			at = syntax.Offset // no offending byte: point past the end
		}
		line, col := position(data, at)
		return fmt.Errorf("%s:%d:%d: invalid JSON: %w", path, line, col, err)
	case errors.As(err, &typ) || (err == nil && settings == nil):
		return fmt.Errorf("%s: must hold a JSON object", path)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// position returns the 1-based line and column of the byte at offset i.
func position(data []byte, i int64) (line, col int) {
	before := data[:min(max(i, 0), int64(len(data)))]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return 1 + bytes.Count(before, []byte("\n")), 1 + utf8.RuneCount(before[lineStart:])
}

// stripComments blanks out // and /* */ comments outside JSON strings, as
// the Gemini CLI does before parsing, keeping newlines so that positions
// stay right.
func stripComments(data []byte) []byte {
	out := bytes.Clone(data)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++ // skip the escaped byte
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != '/' || i+1 == len(out) {
			continue
		}
		switch out[i+1] {
		case '/':
			end := bytes.IndexByte(out[i:], '\n')
			if end < 0 {
				end = len(out) - i
			}
			blank(i, i+end)
			i += end
		case '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			if end < 0 {
				return out // unterminated: leave it to the JSON error
			}
			blank(i, i+2+end+2)
			i += 2 + end + 1
		}
	}
	return out
}
