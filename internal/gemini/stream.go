package gemini

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// maxToolErrors bounds the tool failures kept in a Result.
const maxToolErrors = 10

func toolKind(name string) backend.EventKind {
	switch {
	case name == "google_web_search", strings.HasSuffix(name, "firecrawl_search"):
		return backend.EventSearch
	case name == "web_fetch", strings.HasSuffix(name, "firecrawl_scrape"), strings.HasSuffix(name, "firecrawl_map"):
		return backend.EventFetch
	default:
		return backend.EventTool
	}
}

// streamEvent holds the fields of a stream-json line the runner uses. See
// shared/notes/gemini-cli.md for real samples.
type streamEvent struct {
	Type       string `json:"type"`
	Model      string `json:"model"`     // init
	Role       string `json:"role"`      // message
	Content    string `json:"content"`   // message
	ToolName   string `json:"tool_name"` // tool_use
	ToolID     string `json:"tool_id"`   // tool_use, tool_result
	Output     string `json:"output"`    // tool_result
	Parameters struct {
		Query  string   `json:"query"`
		URL    string   `json:"url"`
		URLs   []string `json:"urls"`
		Prompt string   `json:"prompt"` // web_fetch: URLs embedded in an instruction
	} `json:"parameters"`
	Status   string `json:"status"`   // result
	Severity string `json:"severity"` // error
	Message  string `json:"message"`  // error
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"` // result, tool_result
	Stats struct {
		TotalTokens  int `json:"total_tokens"`
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
		Models       map[string]struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"models"`
	} `json:"stats"` // result
}

// urlPattern finds the URLs a web_fetch prompt embeds.
var urlPattern = regexp.MustCompile(`https?://[^\s<>"'()\[\]{}]+`)

type outputMode int

const (
	modeUndecided outputMode = iota // no non-empty stdout line yet
	modeStream                      // JSON Lines events
	modePlain                       // the whole stdout is the answer
)

// eventTypes are the stream-json event types; only a line of one of them starts stream mode (a plain answer can
// hold a JSON line with a "type" of its own).
var eventTypes = map[string]bool{"init": true, "message": true, "tool_use": true, "tool_result": true, "error": true, "result": true}

// maxPreamble is how many non-event lines may come before the first stream-json event.
const maxPreamble = 5

// maxEventMessages bounds the error event messages kept for Error.Detail.
const maxEventMessages = 10

// collector reads the CLI's stdout as it arrives (it is the io.Writer the
// stdout pipe is copied into) and keeps what the result needs, in bounded
// memory: at most maxOutput bytes of answer text, and lines up to
// maxOutput+64 KiB (longer lines are dropped whole and mark the result
// truncated). It is not safe for concurrent use.
type collector struct {
	maxOutput int
	onEvent   func(backend.Event)

	mode      outputMode
	preamble  int    // non-event lines seen while the mode is undecided
	line      []byte // the current, unfinished line
	dropLine  bool   // the current line passed the line limit
	total     int64  // stdout bytes seen
	plain     []byte // modeUndecided/modePlain: stdout as it came, up to maxOutput
	text      strings.Builder
	textCut   bool // text reached maxOutput: a later, shorter message must not fill the bytes a cut left
	truncated bool

	model       string
	mainModel   string            // from the result's stats: the model that used the most tokens
	usage       *backend.Usage    // from the result's stats
	toolNames   map[string]string // tool_id → tool_name, to name failed tools
	toolErrors  []backend.ToolError
	queries     []string
	urls        []string
	seen        map[string]bool
	errorEvents []string
	sawResult   bool
	status      string // result.status
	resultError string // result.error.message
}

func newCollector(maxOutput int, onEvent func(backend.Event)) *collector {
	return &collector{maxOutput: maxOutput, onEvent: onEvent, seen: make(map[string]bool), toolNames: make(map[string]string)}
}

func (c *collector) lineLimit() int { return c.maxOutput + 64<<10 }

// Write never fails, so the pipe is always drained.
func (c *collector) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	if c.mode != modeStream {
		c.keepPlain(p)
	}
	for len(p) > 0 && c.mode != modePlain {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.appendLine(p)
			break
		}
		c.appendLine(p[:i])
		c.endLine()
		p = p[i+1:]
	}
	return n, nil
}

// Close handles a last line that has no newline.
func (c *collector) Close() error {
	if c.mode != modePlain && (len(c.line) > 0 || c.dropLine) {
		c.endLine()
	}
	return nil
}

func (c *collector) keepPlain(p []byte) {
	if c.truncated { // cut already: bytes that fit in the room a dropped partial character left would leave a gap
		return
	}
	room := c.maxOutput - len(c.plain)
	if len(p) <= room {
		c.plain = append(c.plain, p...)
		return
	}
	c.plain = dropPartialRune(append(c.plain, p[:room]...))
	c.truncated = true
}

// dropPartialRune removes the first bytes of a UTF-8 character from the end of b, where a cut split the character,
// so that a cut answer does not end in an invalid byte.
func dropPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= max(len(b)-utf8.UTFMax, 0); i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func (c *collector) appendLine(p []byte) {
	if c.dropLine {
		return
	}
	if len(c.line)+len(p) > c.lineLimit() {
		c.dropLine = true
		c.line = c.line[:0]
		return
	}
	c.line = append(c.line, p...)
}

func (c *collector) endLine() {
	line, dropped := c.line, c.dropLine
	c.line, c.dropLine = c.line[:0], false
	switch {
	case dropped && c.mode == modeUndecided:
		c.mode = modePlain // too long to be an event: a CLI that prints plain text
	case dropped:
		c.truncated = true
	default:
		c.handleLine(line)
	}
}

func (c *collector) handleLine(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var ev streamEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		// A field of an unexpected type leaves the rest decoded.
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			ev.Type = ""
		}
	}
	if c.mode == modeUndecided {
		// A banner line before the events must not make a stream-json run look like plain text (and its failed
		// result a success): a few non-event lines leave the mode open.
		if !eventTypes[ev.Type] {
			if c.preamble++; c.preamble > maxPreamble {
				c.mode = modePlain
			}
			return
		}
		c.mode = modeStream
		c.plain, c.truncated = nil, false // only the plain copy was cut so far
	}
	c.handleEvent(ev) // modeStream: lines that are not events are ignored
}

func (c *collector) handleEvent(ev streamEvent) {
	switch ev.Type {
	case "init":
		c.model = ev.Model
	case "message":
		if ev.Role == "assistant" {
			c.appendText(ev.Content)
			if c.onEvent != nil && ev.Content != "" {
				c.onEvent(backend.Event{Kind: backend.EventText, Text: ev.Content})
			}
		}
	case "tool_use":
		c.toolNames[ev.ToolID] = ev.ToolName
		c.toolUse(ev)
	case "tool_result":
		if ev.Status == "error" {
			c.toolFailed(ev)
		}
	case "error":
		msg := ev.Message
		if ev.Severity != "" && ev.Severity != "error" {
			msg = ev.Severity + ": " + msg
		}
		c.errorEvents = append(c.errorEvents, msg)
		if len(c.errorEvents) > maxEventMessages {
			c.errorEvents = c.errorEvents[1:]
		}
	case "result":
		c.sawResult = true
		c.status = ev.Status
		if ev.Error != nil {
			c.resultError = ev.Error.Message
		}
		if st := ev.Stats; st.TotalTokens > 0 {
			c.usage = &backend.Usage{InputTokens: st.InputTokens, OutputTokens: st.OutputTokens, TotalTokens: st.TotalTokens}
		}
		most := -1
		for name, m := range ev.Stats.Models {
			if m.TotalTokens > most || m.TotalTokens == most && name < c.mainModel {
				c.mainModel, most = name, m.TotalTokens
			}
		}
	}
}

func (c *collector) toolFailed(ev streamEvent) {
	tool := cmp.Or(c.toolNames[ev.ToolID], ev.ToolID)
	msg := ev.Output
	if ev.Error != nil && ev.Error.Message != "" {
		msg = ev.Error.Message
	}
	msg = truncateString(strings.Join(strings.Fields(msg), " "), 500)
	if len(c.toolErrors) < maxToolErrors {
		c.toolErrors = append(c.toolErrors, backend.ToolError{Tool: tool, Message: msg})
	}
	if c.onEvent != nil {
		c.onEvent(backend.Event{Kind: backend.EventFailed, Tool: tool, Error: msg})
	}
}

func (c *collector) appendText(s string) {
	if c.textCut {
		return
	}
	if room := c.maxOutput - c.text.Len(); len(s) > room {
		s = truncateString(s, max(room, 0))
		c.truncated, c.textCut = true, true
	}
	c.text.WriteString(s)
}

func (c *collector) toolUse(ev streamEvent) {
	p := ev.Parameters
	kind := toolKind(ev.ToolName)
	// An empty URL (the model can send "urls": [""]) names no page: it is neither a source nor the step's URL.
	urls := slices.DeleteFunc(append([]string{p.URL}, p.URLs...), func(u string) bool { return u == "" })
	if kind == backend.EventFetch && p.Prompt != "" {
		urls = append(urls, urlPattern.FindAllString(p.Prompt, -1)...)
	}
	if p.Query != "" {
		c.queries = c.addOnce(c.queries, "q:", p.Query)
	}
	for _, u := range urls {
		c.urls = c.addOnce(c.urls, "u:", u)
	}
	if c.onEvent == nil {
		return
	}
	out := backend.Event{Kind: kind, Tool: ev.ToolName, Query: p.Query}
	if len(urls) > 0 {
		out.URL = urls[0]
	}
	c.onEvent(out)
}

func (c *collector) addOnce(list []string, ns, s string) []string {
	if c.seen[ns+s] {
		return list
	}
	c.seen[ns+s] = true
	return append(list, s)
}

// streamed reports whether stdout was stream-json.
func (c *collector) streamed() bool { return c.mode == modeStream }

// result returns what was collected so far.
func (c *collector) result() backend.Result {
	text := c.text.String()
	if !c.streamed() {
		text = strings.ToValidUTF8(string(c.plain), "\uFFFD") // as stream-json text is: a CLI that wrote bytes
	}
	return backend.Result{
		Text:       strings.TrimSpace(text),
		Model:      cmp.Or(c.mainModel, c.model),
		ToolErrors: c.toolErrors,
		Queries:    c.queries,
		URLs:       c.urls,
		Truncated:  c.truncated,
		Streamed:   c.streamed(),
		Usage:      c.usage.Plus(searches(len(c.queries))),
	}
}

// searches is the usage of n searches; nil for none.
func searches(n int) *backend.Usage {
	if n == 0 {
		return nil
	}
	return &backend.Usage{Searches: n}
}
