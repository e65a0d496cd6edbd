package gemini

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// collected is everything a collector made of one stdout: the result, the events and the run's outcome.
type collected struct {
	result      backend.Result
	events      []backend.Event
	sawResult   bool
	status      string
	resultError string
	errorEvents []string
}

// collect feeds stdout to a new collector in pieces of size chunk (all at once for chunk <= 0).
func collect(stdout string, chunk, maxOutput int) collected {
	var events []backend.Event
	c := newCollector(maxOutput, func(e backend.Event) { events = append(events, e) })
	feed(c, stdout, chunk)
	return collected{c.result(), events, c.sawResult, c.status, c.resultError, c.errorEvents}
}

// FuzzCollector feeds arbitrary stdout to the stream-json collector, with an answer limit small enough to be hit.
// Whatever the CLI prints, the collector never panics, reads the same thing however the pipe splits it, sends only
// well-formed events, and keeps an answer that is exactly what the CLI wrote, cut at the limit without splitting a
// character.
func FuzzCollector(f *testing.F) {
	f.Add(realStream, uint8(0), uint16(1<<10))
	f.Add(realStream, uint8(7), uint16(21)) // the limit falls inside "—"
	f.Add("Hello.\nSecond line.\n", uint8(3), uint16(100))
	f.Add("Grüße aus Köln\n", uint8(1), uint16(2)) // a plain answer cut inside "ü"
	f.Fuzz(func(t *testing.T, stdout string, chunk uint8, limit uint16) {
		maxOutput := 1 + int(limit)
		whole := collect(stdout, 0, maxOutput)
		if pieces := collect(stdout, int(chunk), maxOutput); !reflect.DeepEqual(pieces, whole) {
			t.Fatalf("in pieces of %d: got %+v, want what it read whole: %+v", chunk, pieces, whole)
		}
		r := whole.result

		if !r.Streamed && len(whole.events) > 0 {
			t.Errorf("plain output sent events: %+v", whole.events)
		}
		var answer strings.Builder // the assistant's text as the events carried it
		var failures []backend.ToolError
		for _, e := range whole.events {
			switch e.Kind {
			case backend.EventText:
				if e.Text == "" || e.Tool != "" || e.Query != "" || e.URL != "" || e.Error != "" {
					t.Errorf("text event %+v: want non-empty text and nothing else", e)
				}
				answer.WriteString(e.Text)
			case backend.EventSearch, backend.EventFetch, backend.EventTool:
				if e.Kind != toolKind(e.Tool) || e.Text != "" || e.Error != "" {
					t.Errorf("tool event %+v: want the kind of %q and no text or error", e, e.Tool)
				}
				if e.Query != "" && !slices.Contains(r.Queries, e.Query) {
					t.Errorf("event query %q missing from the result's %q", e.Query, r.Queries)
				}
				if e.URL != "" && !slices.Contains(r.URLs, e.URL) {
					t.Errorf("event URL %q missing from the result's %q", e.URL, r.URLs)
				}
			case backend.EventFailed:
				if len(e.Error) > 500 || e.Error != strings.Join(strings.Fields(e.Error), " ") || !utf8.ValidString(e.Error) {
					t.Errorf("failure event %+v: want one line of at most 500 bytes of UTF-8", e)
				}
				failures = append(failures, backend.ToolError{Tool: e.Tool, Message: e.Error})
			default:
				t.Errorf("event of unknown kind: %+v", e)
			}
		}
		if want := failures[:min(len(failures), maxToolErrors)]; !slices.Equal(r.ToolErrors, want) {
			t.Errorf("tool errors %+v, want the first %d failure events %+v", r.ToolErrors, maxToolErrors, want)
		}
		for name, list := range map[string][]string{"queries": r.Queries, "URLs": r.URLs} {
			if slices.Contains(list, "") || len(slices.Compact(slices.Sorted(slices.Values(list)))) != len(list) {
				t.Errorf("%s %q: want each once, none empty", name, list)
			}
		}

		// The answer: the assistant's text when the CLI streamed, else stdout itself, with U+FFFD for bytes that are
		// not UTF-8. Either is cut at the limit, never inside a character, and marked truncated when that lost
		// something.
		written := stdout
		if r.Streamed {
			written = answer.String()
		}
		if want := strings.TrimSpace(truncateString(written, maxOutput)); r.Streamed || utf8.ValidString(stdout) {
			if r.Text != want {
				t.Errorf("text %q, want %q", r.Text, want)
			}
		} else if plain := strings.ToValidUTF8(strings.TrimLeftFunc(stdout, unicode.IsSpace), "\uFFFD"); !utf8.ValidString(r.Text) ||
			!strings.HasPrefix(plain, r.Text) || len(r.Text) > 3*maxOutput { // U+FFFD is 3 bytes, for 1 bad one or more
			t.Errorf("text %q, want a prefix of stdout, bad bytes as U+FFFD, from at most %d bytes", r.Text, maxOutput)
		}
		// A line longer than 64 KiB is dropped and marks the result truncated too; shorter output has none.
		if cut := len(written) > maxOutput; len(stdout) <= 64<<10 && r.Truncated != cut {
			t.Errorf("truncated %v, want %v (%d bytes written, limit %d)", r.Truncated, cut, len(written), maxOutput)
		}
	})
}
