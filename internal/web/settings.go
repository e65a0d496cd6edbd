package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// settingsPage is /settings, where people edit the API keys, the backend and the other common settings, saved to
// the config dir's .env file.
type settingsPage struct {
	h *Handler
	s Settings
}

// field is one setting on the page.
//
// A secret's value never reaches the page: the field shows the saved one masked (SavedMasked), an empty
// submission keeps it, and the Clear checkbox removes it.
type field struct {
	config.VarDoc
	Value       string // from the .env file, or a refused form's; never a secret's
	SavedMasked string // a secret's value in the .env file as ••••abcd; "" when the file has none
	Error       string
	Overridden  bool   // set in the process environment or by a flag, which win over .env
	Flag        string // the command-line flag that set it ("--port"), when Overridden by one
	Effective   string // the value in force when Overridden (masked for secrets)
}

// fail marks the field's value as refused, for reason. A number or URL field then becomes a text field, so that the
// browser shows the value as it is (a number field shows "abc" as empty, and would send it so) and sends it back
// unchanged instead of refusing the form itself.
func (f *field) fail(reason string) {
	f.Error = reason
	if f.Input == "number" || f.Input == "url" {
		f.Input = "text"
	}
}

// Clear is the name of a secret's "Remove the saved key" checkbox.
func (f field) Clear() string { return clearName(f.Name) }

func clearName(name string) string { return "clear_" + name }

// option is one choice of a select field.
type option struct {
	Value    string
	Selected bool
}

// Choices are a select field's options with the one in force selected: the field's value, else its default. A
// value that is none of them (a hand-edited file's, a refused form's) is offered too, selected, so the page shows
// what it holds instead of quietly saving another value.
func (f field) Choices() []option {
	current := cmp.Or(f.Value, f.Default)
	var opts []option
	found := false
	for _, o := range f.Options {
		selected := strings.EqualFold(o, current) // config accepts any case
		found = found || selected
		opts = append(opts, option{Value: o, Selected: selected})
	}
	if !found && current != "" {
		opts = append(opts, option{Value: current, Selected: true})
	}
	return opts
}

type settingsView struct {
	Fields     []field
	CSRF       string
	Saved      bool
	NotApplied string // why the saved settings could not be applied
	Moved      string // the new address after a port change
	Error      string
	Server     string
	DotenvPath string
}

// pageVars are the variables the page shows: those with a label, in config's order.
func pageVars() []config.VarDoc {
	var vars []config.VarDoc
	for _, v := range config.EnvVars() {
		if v.Label != "" {
			vars = append(vars, v)
		}
	}
	return vars
}

// view shows the settings with values in the fields (the .env file's, or a rejected form's) and the secrets
// saved in the .env file, saved, masked (the page never shows a key it did not save).
func (pg *settingsPage) view(values map[string]string, saved map[string]string) settingsView {
	st := pg.h.app.Glance()
	cfg := st.Config
	p := settingsView{CSRF: pg.h.csrf, Server: serverLine(st), DotenvPath: config.EnvPath(cfg.Dir)}
	for _, v := range pageVars() {
		f := field{VarDoc: v, Value: values[v.Name], Overridden: cfg.Overridden[v.Name], Flag: cfg.SetBy[v.Name]}
		if f.Overridden {
			f.Effective = cfg.Shown(v.Name)
		}
		if v.Secret {
			f.Value, f.SavedMasked = "", config.Secret(saved[v.Name]).Last4()
		}
		p.Fields = append(p.Fields, f)
	}
	return p
}

// get shows the settings of the .env file, each value the app cannot use (a hand-edited file's) with its error:
// such a value stays in its field, as the file holds it, until the user changes it.
func (pg *settingsPage) get(w http.ResponseWriter, r *http.Request) {
	data, values, err := pg.h.readDotenv()
	p := pg.view(values, values)
	p.Saved = r.URL.Query().Get("saved") == "1"
	switch n := markInvalid(&p, invalidValues(pg.h.app.Glance().Config.Dir, data)); {
	case err != nil:
		p.Error = err.Error()
	case n == 1:
		p.Error = "A value in the .env file has an error, marked below: correct it, or empty its field for the " +
			"default. Other settings can be saved meanwhile; they apply once it is corrected."
	case n > 1:
		p.Error = fmt.Sprintf("%d values in the .env file have errors, marked below: correct them, or empty their "+
			"fields for the defaults. Other settings can be saved meanwhile; they apply once they are corrected.", n)
	}
	pg.h.render(w, "settings.html", p)
}

// invalidValues are the reasons why the app cannot use values of the .env file data, by variable: what it says
// when it loads data as its .env file, in dir, with no process environment overriding it.
func invalidValues(dir string, data []byte) map[string]string {
	only := config.Env{Lookup: func(name string) (string, bool) {
		if name == config.DirVar {
			return dir, true
		}
		return "", false
	}}
	_, err := config.LoadWithDotenv(only, data)
	reasons := map[string]string{}
	for _, e := range unjoin(err) {
		var inv *config.InvalidError
		if errors.As(e, &inv) {
			reasons[inv.Var] = inv.Reason
		}
	}
	return reasons
}

// markInvalid marks the fields whose variable has a reason in reasons, and returns how many it marked.
func markInvalid(p *settingsView, reasons map[string]string) int {
	n := 0
	for i := range p.Fields {
		if reason, bad := reasons[p.Fields[i].Name]; bad {
			p.Fields[i].fail(reason)
			n++
		}
	}
	return n
}

func (pg *settingsPage) post(w http.ResponseWriter, r *http.Request) {
	old, saved, err := pg.h.readDotenv()
	if err != nil && old == nil { // unreadable; a malformed file is refused with its line by SaveDotenv
		p := pg.view(map[string]string{}, map[string]string{})
		p.Error = err.Error()
		w.WriteHeader(http.StatusInternalServerError)
		pg.h.render(w, "settings.html", p)
		return
	}
	submitted := map[string]string{}
	var changes []config.Assignment
	for _, v := range pageVars() {
		value := strings.TrimSpace(r.PostForm.Get(v.Name))
		submitted[v.Name] = value
		if v.Secret {
			switch {
			case r.PostForm.Get(clearName(v.Name)) == "on":
				value = ""
			case value == "":
				continue // keep the saved key: the page never shows it
			}
		}
		changes = append(changes, config.Assignment{Name: v.Name, Value: value})
	}
	data := config.UpdateDotenv(old, changes)

	moved, err := pg.s.SaveDotenv(data)
	var (
		refused    *RefusedError
		notApplied *NotAppliedError
	)
	switch {
	case errors.As(err, &refused):
		p := pg.view(submitted, saved)
		markRefused(&p, refused.Err, submitted, saved)
		w.WriteHeader(http.StatusUnprocessableEntity)
		pg.h.render(w, "settings.html", p)
	case errors.As(err, &notApplied):
		pg.h.log.Error("settings saved but not applied", "file", config.EnvPath(pg.h.app.Glance().Config.Dir), "err", notApplied.Err)
		data, values, _ := pg.h.readDotenv()
		p := pg.view(values, values)
		markInvalid(&p, invalidValues(pg.h.app.Glance().Config.Dir, data)) // a value kept as the file held it
		p.NotApplied = notApplied.Err.Error()
		pg.h.render(w, "settings.html", p)
	case err != nil:
		pg.h.log.Error("save settings", "err", err)
		p := pg.view(submitted, saved)
		p.Error = "Nothing was saved: " + err.Error()
		w.WriteHeader(http.StatusInternalServerError)
		pg.h.render(w, "settings.html", p)
	case moved != "":
		pg.h.log.Info("settings saved", "file", config.EnvPath(pg.h.app.Glance().Config.Dir))
		_, values, _ := pg.h.readDotenv()
		p := pg.view(values, values)
		p.Saved, p.Moved = true, moved+"/settings"
		pg.h.render(w, "settings.html", p)
	default:
		pg.h.log.Info("settings saved", "file", config.EnvPath(pg.h.app.Glance().Config.Dir))
		http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
	}
}

// markRefused shows why the app refused the form: each bad value at its field, anything else in the banner. A
// value the .env file already held (saved), sent back unchanged (submitted), is said to be the file's: it stays
// there, as it is, until the user changes it (alone, it refuses nothing: the controller saves the rest).
func markRefused(p *settingsView, err error, submitted, saved map[string]string) {
	reasons := map[string]string{}
	var other []string
	for _, e := range unjoin(err) {
		var inv *config.InvalidError
		if errors.As(e, &inv) && slices.ContainsFunc(p.Fields, func(f field) bool { return f.Name == inv.Var }) {
			reasons[inv.Var] = inv.Reason
			continue
		}
		other = append(other, e.Error())
	}
	markInvalid(p, reasons)
	for i := range p.Fields {
		f := &p.Fields[i]
		switch {
		case f.Error == "":
		case f.Secret && submitted[f.Name] == "": // left empty: the saved key stays
			f.Error += " (the saved key: enter a valid one, or tick Remove the saved key)"
		case f.Secret:
			f.Error += " (enter the key again)"
		case submitted[f.Name] == strings.TrimSpace(saved[f.Name]):
			f.Error += " (as the .env file holds it: correct it, or empty the field for the default)"
		}
	}
	p.Error = "Nothing was saved: fix the values marked below."
	if len(other) > 0 {
		p.Error = "Nothing was saved: " + strings.Join(other, "; ")
	}
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
