package web

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// The live parts of the pages (/status's, the running research of /history, the test search of /welcome) follow
// the server without reloading: each page's script reads a stream of server-sent events, each event the part
// rendered again, and puts it in place.

// eventsGap is the least time between two events of a stream, so that a burst of changes (a search's progress) is
// sent as one.
const eventsGap = 250 * time.Millisecond

// frame is one event of a stream: the template of the live part, and its data.
type frame struct {
	template string
	data     any
	ticking  bool // it shows elapsed times, which move: sent again every second
	last     bool // what it shows changes no more (research that ended): the stream ends after it
}

// liveScript is what the script of a page with a live part needs: its nonce, the stream to read, and the element
// whose contents each event replaces.
type liveScript struct {
	Nonce, Events, Target string
}

// stream sends next's frames as server-sent events: one at once, then one after each change of the app's state,
// and every second while the last was ticking, until the client leaves, the server stops, or a frame is the last.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, next func() frame) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	var part strings.Builder
	for {
		changed := h.app.Changed()
		f := next()
		part.Reset()
		if err := h.pages.ExecuteTemplate(&part, f.template, f.data); err != nil {
			h.log.Error("render page", "page", f.template, "err", err)
			return
		}
		// An event's data is one "data:" line per line. A lone CR (a CLI's progress output in an error's details) ends
		// a line of an event stream too, and html/template leaves it as it is: it becomes the character reference.
		fragment := strings.ReplaceAll(part.String(), "\r", "&#13;")
		for line := range strings.Lines(fragment) {
			if _, err := io.WriteString(w, "data: "+strings.TrimRight(line, "\r\n")+"\n"); err != nil {
				return
			}
		}
		if _, err := io.WriteString(w, "\n"); err != nil {
			return
		}
		flusher.Flush()
		if f.last {
			return
		}
		var tick <-chan time.Time
		if f.ticking {
			tick = time.After(time.Second)
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(eventsGap):
		}
		select {
		case <-r.Context().Done():
			return
		case <-changed:
		case <-tick:
		}
	}
}
