package web

import (
	"bytes"
	"errors"
	"html/template"
	"net/http"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// reportPage is /report?id=..., a report of the history rendered from its Markdown.
type reportPage struct{ h *Handler }

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

type reportView struct {
	record.Report
	When string
	HTML template.HTML
}

// viewReport is rep as its page shows it.
func viewReport(rep record.Report) (reportView, error) {
	html, err := renderMarkdown(rep.Markdown)
	return reportView{Report: rep, When: rep.Started.Local().Format("2006-01-02 15:04"), HTML: html}, err
}

// get shows the report ?id= of the library. An id that is malformed or names no kept report is a 404.
func (pg *reportPage) get(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	if !record.ValidID(id) {
		pg.h.notFound(w, "this is not the address of a report")
		return
	}
	rep, err := pg.h.app.Report(id)
	if errors.Is(err, record.ErrNotFound) {
		pg.h.notFound(w, "the research library no longer keeps this report (see GEMINI_LIBRARY_MAX_REPORTS, _DAYS and _MB)")
		return
	}
	var page reportView
	if err == nil {
		page, err = viewReport(rep)
	}
	if err != nil {
		pg.h.log.Error("show a report", "id", id, "err", err)
		http.Error(w, "The report could not be shown", http.StatusInternalServerError)
		return
	}
	pg.h.render(w, "report.html", page)
}
