package web

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/history"
)

// markdown renders reports: CommonMark with GitHub's tables, strikethrough, task lists and bare URLs made links.
// goldmark's defaults are kept on purpose: raw HTML in a report is left out (a report quotes pages the agent read,
// and their markup has no place on this page), and so are links with a dangerous scheme (javascript:, say).
var markdown = goldmark.New(goldmark.WithExtensions(extension.GFM))

// renderMarkdown renders a report's Markdown as HTML that is safe to put on the page.
func renderMarkdown(md string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := markdown.Convert([]byte(md), &buf); err != nil {
		return "", err
	}
	return template.HTML(buf.String()), nil // goldmark escapes text and leaves raw HTML out
}

type reportPage struct {
	history.Report
	When string
	HTML template.HTML
}

// viewReport is rep as its page shows it.
func viewReport(rep history.Report) (reportPage, error) {
	html, err := renderMarkdown(rep.Markdown)
	return reportPage{Report: rep, When: rep.Started.Local().Format("2006-01-02 15:04"), HTML: html}, err
}

// getReport shows the report ?id= of the history. An id that is malformed or names no kept report is a 404: only
// well-formed ids reach the history, which names files by them.
func (h *Handler) getReport(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if !history.ValidID(id) {
		h.notFound(w, "this is not the address of a report")
		return
	}
	rep, err := h.app.Report(id)
	if errors.Is(err, history.ErrNotFound) {
		h.notFound(w, "the history no longer keeps this report (it keeps the last GEMINI_HISTORY_MAX)")
		return
	}
	var page reportPage
	if err == nil {
		page, err = viewReport(rep)
	}
	if err != nil {
		h.log.Error("show a report", "id", id, "err", err)
		http.Error(w, "The report could not be shown", http.StatusInternalServerError)
		return
	}
	h.render(w, "report.html", page)
}

func (h *Handler) notFound(w http.ResponseWriter, reason string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	h.render(w, "notfound.html", map[string]string{"Reason": reason})
}
