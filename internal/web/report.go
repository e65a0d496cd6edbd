package web

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// reportPage is /report?id=..., a report of the library rendered from its Markdown, with what people do with it:
// copy its Markdown, download it (/report/markdown?id=...), research it again, delete it.
type reportPage struct{ h *Handler }

// markdown renders reports: CommonMark with GitHub's tables, strikethrough, task lists and bare URLs made links.
// goldmark's defaults are kept on purpose: raw HTML in a report is left out (a report quotes pages the agent read,
// and their markup has no place on this page), and so are links with a dangerous scheme (javascript:, say). It is
// made when a report page first asks for it: a server that never shows one never pays for its parsers.
var markdown = sync.OnceValue(func() goldmark.Markdown { return goldmark.New(goldmark.WithExtensions(extension.GFM)) })

// renderMarkdown renders a report's Markdown as HTML that is safe to put on the page.
func renderMarkdown(md string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := markdown().Convert([]byte(md), &buf); err != nil {
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

// reportPageView is the whole page of a report.
type reportPageView struct {
	reportView
	Nonce    string
	CSRF     string
	Document string // what Copy Markdown copies, as Download saves it
	Actions  bool   // Re-run and Delete are offered
	Confirm  bool   // Delete asks to be confirmed: its form came without the page's script, which asks first
	Error    string // why the last action did nothing
}

// kept is the report ?id= (or the form's id) of the library; when there is none, it has answered with the page
// that says so.
func (pg *reportPage) kept(w http.ResponseWriter, id string) (record.Report, bool) {
	if !record.ValidID(id) {
		pg.h.notFound(w, "report", "this is not the address of a report")
		return record.Report{}, false
	}
	rep, err := pg.h.app.Report(id)
	if errors.Is(err, record.ErrNotFound) {
		pg.h.notFound(w, "report", "the research library no longer keeps this report (it was deleted, or dropped "+
			"past GEMINI_LIBRARY_MAX_REPORTS, _DAYS or _MB)")
		return record.Report{}, false
	}
	if err != nil {
		pg.h.log.Error("read a report", "id", id, "err", err)
		http.Error(w, "The report could not be read", http.StatusInternalServerError)
		return record.Report{}, false
	}
	return rep, true
}

// get shows the report ?id= of the library. An id that is malformed or names no kept report is a 404.
func (pg *reportPage) get(w http.ResponseWriter, r *http.Request) {
	if rep, ok := pg.kept(w, r.URL.Query().Get("id")); ok {
		pg.show(w, rep, func(*reportPageView) {}, http.StatusOK)
	}
}

// show renders the page of rep, as change makes it, with status code.
func (pg *reportPage) show(w http.ResponseWriter, rep record.Report, change func(*reportPageView), code int) {
	v, err := viewReport(rep)
	if err != nil {
		pg.h.log.Error("show a report", "id", rep.ID, "err", err)
		http.Error(w, "The report could not be shown", http.StatusInternalServerError)
		return
	}
	p := reportPageView{reportView: v, CSRF: pg.h.csrf, Document: rep.Document(), Actions: pg.h.research != nil}
	change(&p)
	p.Nonce = withScripts(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	pg.h.render(w, "report.html", p)
}

// post does what a button of the page asks: Re-run or Delete the report of the form's id.
func (pg *reportPage) post(w http.ResponseWriter, r *http.Request) {
	rep, ok := pg.kept(w, r.PostForm.Get("id"))
	if !ok {
		return
	}
	switch r.PostForm.Get("action") {
	case "rerun":
		pg.rerun(w, r, rep)
	case "delete":
		pg.delete(w, r, rep)
	default:
		http.Error(w, "Unknown form", http.StatusBadRequest)
	}
}

// rerun starts the research of rep again, and shows it among the running research of /history.
func (pg *reportPage) rerun(w http.ResponseWriter, r *http.Request, rep record.Report) {
	researchID, err := pg.h.research.Rerun(rep.ID)
	if err != nil {
		var failed *SearchError
		msg := err.Error()
		if errors.As(err, &failed) {
			msg = failed.Message + ". " + failed.Details
		}
		pg.show(w, rep, func(p *reportPageView) { p.Error = "The research did not start again: " + msg },
			http.StatusUnprocessableEntity)
		return
	}
	pg.h.log.Info("research started again from its report's page", "report", rep.ID, "research_id", researchID)
	done := fmt.Sprintf("Researching “%s” again: research id %s.", oneLine(rep.Topic, 80), researchID)
	http.Redirect(w, r, "/history?"+url.Values{"done": {done}}.Encode()+"#running", http.StatusSeeOther)
}

// delete removes rep from the library once confirmed: by the page's script, which asks before it sends the form,
// or, without it, by the second form the page then shows.
func (pg *reportPage) delete(w http.ResponseWriter, r *http.Request, rep record.Report) {
	if r.PostForm.Get("confirmed") != "yes" {
		pg.show(w, rep, func(p *reportPageView) { p.Confirm = true }, http.StatusOK)
		return
	}
	err := pg.h.research.Delete(rep.ID)
	if errors.Is(err, record.ErrNotFound) { // deleted meanwhile, from another page or by retention
		err = nil
	}
	if err != nil {
		pg.h.log.Error("delete a report", "id", rep.ID, "err", err)
		pg.show(w, rep, func(p *reportPageView) { p.Error = "The report was not deleted: " + err.Error() },
			http.StatusInternalServerError)
		return
	}
	pg.h.log.Info("report deleted from the research library", "id", rep.ID)
	done := fmt.Sprintf("Deleted the report “%s”.", oneLine(rep.Topic, 80))
	http.Redirect(w, r, "/history?"+url.Values{"done": {done}}.Encode(), http.StatusSeeOther)
}

// download sends the report ?id= as a Markdown file (document), to be saved under a name made of its topic and
// date.
func (pg *reportPage) download(w http.ResponseWriter, r *http.Request) {
	rep, ok := pg.kept(w, r.URL.Query().Get("id"))
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": fileName(rep.Summary)}))
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = io.WriteString(w, rep.Document())
}

// fileNameTopic is how many characters of a report's topic its file name keeps.
const fileNameTopic = 60

// fileName is the name a downloaded report is saved under: its topic's words, in lower case and joined by hyphens,
// then the date of its research: what-changed-in-rust-2024-2026-11-22.md.
func fileName(s record.Summary) string {
	var words []string
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s.Topic), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if n += len([]rune(w)) + 1; n > fileNameTopic+1 && len(words) > 0 {
			break
		}
		words = append(words, w)
	}
	topic := strings.Join(words, "-")
	if topic == "" {
		topic = "report"
	}
	if r := []rune(topic); len(r) > fileNameTopic { // one long word
		topic = string(r[:fileNameTopic])
	}
	return topic + "-" + s.Started.Local().Format("2006-01-02") + ".md"
}

// oneLine is s on one line, cut to at most n characters (n < 0: not cut), ending in "…" when cut.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); n >= 0 && len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}
