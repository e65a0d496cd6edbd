package web

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
)

// handEdit replaces the .env file of b, as someone editing it while the app runs.
func handEdit(t *testing.T, b *fakeBackend, data string) {
	t.Helper()
	if err := os.WriteFile(config.EnvPath(b.cfg.Dir), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readEnv(t *testing.T, b *fakeBackend) string {
	t.Helper()
	data, err := os.ReadFile(config.EnvPath(b.cfg.Dir))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A bad value hand-edited into the .env file shows in its field, as written (a text field: a number field would
// show it empty), with its error; and a save that sends it back unchanged, with another field changed, saves that
// field, keeps the bad line as written and says nothing applies until it is corrected.
func TestSettingsKeepABadValueOfTheFile(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWith(t, dotenv, nil)
	edited := dotenv + "GEMINI_SEARCH_TIMEOUT=abc\nGEMINI_MODEL=gemini-2.5-flash\n"
	handEdit(t, b, edited)

	_, body := get(t, srv.URL+"/settings", true)
	for _, want := range []string{
		`<input type="text" id="GEMINI_SEARCH_TIMEOUT" name="GEMINI_SEARCH_TIMEOUT" value="abc"`,
		`<p class="error" id="error-GEMINI_SEARCH_TIMEOUT">must be a whole number of milliseconds`,
		`id="error">A value in the .env file has an error, marked below`,
		`<input type="number" id="MCP_SERVER_PORT"`, // a good value's field stays a number field
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}

	// The browser sends the page's values back: the bad one unchanged, the model changed. The model is saved, the
	// bad value stays as the file held it, with its error, and nothing is applied until it is corrected.
	form := url.Values{"csrf": {h.csrf}, "GEMINI_SEARCH_TIMEOUT": {"abc"}, "GEMINI_MODEL": {"gemini-2.5-pro"}}
	code, body := post(t, srv, srv.URL, form)
	if code != http.StatusOK {
		t.Fatalf("save: %d, want 200; body:\n%s", code, body)
	}
	for _, want := range []string{
		`id="not-applied">Saved, but not applied: `,
		`value="abc"`,
		`<p class="error" id="error-GEMINI_SEARCH_TIMEOUT">must be a whole number of milliseconds`,
		`value="gemini-2.5-pro"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q:\n%s", want, body)
		}
	}
	if got, want := readEnv(t, b), dotenv+"GEMINI_SEARCH_TIMEOUT=abc\nGEMINI_MODEL=gemini-2.5-pro\n"; got != want {
		t.Errorf(".env became %q, want the model saved and the bad line kept, %q", got, want)
	}

	// Changed, the value is checked and replaced like any other.
	form.Set("GEMINI_SEARCH_TIMEOUT", "120000")
	if code, body := post(t, srv, srv.URL, form); code != http.StatusSeeOther {
		t.Fatalf("save with the value corrected: %d, want 303; body:\n%s", code, body)
	}
	want := dotenv + "GEMINI_SEARCH_TIMEOUT=120000\nGEMINI_MODEL=gemini-2.5-pro\n"
	if got := readEnv(t, b); got != want {
		t.Errorf(".env became %q, want %q", got, want)
	}
	if _, body := get(t, srv.URL+"/settings?saved=1", true); strings.Contains(body, `class="error"`) ||
		!strings.Contains(body, "Saved and applied") {
		t.Errorf("after the save, the page still shows an error, or not the save:\n%s", body)
	}
}

// An emptied field removes a bad value of the file: the default applies.
func TestSettingsEmptyABadValue(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWith(t, dotenv, nil)
	handEdit(t, b, dotenv+"GEMINI_SEARCH_TIMEOUT=abc\n")
	form := url.Values{"csrf": {h.csrf}, "GEMINI_SEARCH_TIMEOUT": {""}}
	if code, body := post(t, srv, srv.URL, form); code != http.StatusSeeOther {
		t.Fatalf("save: %d, want 303; body:\n%s", code, body)
	}
	if got := readEnv(t, b); got != dotenv {
		t.Errorf(".env became %q, want %q", got, dotenv)
	}
}

// A bad key hand-edited into the file shows its error (never the key); a save that leaves the key field empty
// keeps it, with its error, and saves the rest.
func TestSettingsKeepABadKeyOfTheFile(t *testing.T) {
	t.Parallel()
	b, srv, h := setupWith(t, dotenv, nil)
	edited := "GEMINI_API_KEY=\"AIza has-a-space-LMNO\"\n"
	handEdit(t, b, edited)

	_, body := get(t, srv.URL+"/settings", true)
	if !strings.Contains(body, `id="error-GEMINI_API_KEY">must not contain spaces`) {
		t.Errorf("the page does not show the key's error:\n%s", body)
	}
	code, body := post(t, srv, srv.URL, url.Values{"csrf": {h.csrf}, "GEMINI_MODEL": {"gemini-2.5-pro"}})
	if code != http.StatusOK || !strings.Contains(body, `id="not-applied"`) ||
		!strings.Contains(body, `id="error-GEMINI_API_KEY">must not contain spaces`) {
		t.Errorf("save: %d, want the model saved and the saved key's error shown; body:\n%s", code, body)
	}
	for _, page := range []string{body, func() string { _, body := get(t, srv.URL+"/settings", true); return body }()} {
		if strings.Contains(page, "has-a-space") {
			t.Errorf("the page shows the key:\n%s", page)
		}
	}
	if got := readEnv(t, b); got != edited+"GEMINI_MODEL=gemini-2.5-pro\n" {
		t.Errorf(".env became %q, want the key's line as edited and the model saved", got)
	}
}
