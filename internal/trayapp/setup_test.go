package trayapp

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// TestSetupPage: the menu's Check setup… link opens doctor's checklist on the server's own port, for the
// configuration in force; the real queries run from its form, and no key shows either way.
func TestSetupPage(t *testing.T) {
	t.Parallel()
	const (
		key         = "AIza-tray-secret-0123456789-LMNO"
		newKey      = "AIza-tray-secret-9876543210-WXYZ"
		apiOnly     = "GEMINI_BACKEND=api\nGEMINI_API_KEY="
		keyPiece    = "0123456789"
		newKeyPiece = "9876543210"
	)
	mock := mockgemini.New()
	mock.Handle(mockgemini.KindChat, mockgemini.Always(mockgemini.InvalidKey()))
	api := httptest.NewServer(mock)
	t.Cleanup(func() {
		mock.Close()
		api.Close()
	})
	c := startController(t, controllerOptions{dotenv: apiOnly + key + "\n",
		env: map[string]string{"GOOGLE_GEMINI_BASE_URL": api.URL}})

	link, err := c.http.PageURL("/setup")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + c.http.Status().Addr
	if !strings.HasPrefix(link, base+"/setup?token=") {
		t.Fatalf("setup link %s, want %s/setup?token=…", link, base)
	}
	jar, _ := cookiejar.New(nil)
	browser := &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}
	page := func(method string, form url.Values) string {
		t.Helper()
		var resp *http.Response
		var err error
		if method == http.MethodGet {
			resp, err = browser.Get(link)
		} else {
			req, _ := http.NewRequest(http.MethodPost, base+"/setup", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", base)
			resp, err = browser.Do(req)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		body := string(data)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s /setup: %s\n%s", method, resp.Status, body)
		}
		for _, k := range []string{key, newKey, keyPiece, newKeyPiece} {
			if strings.Contains(body, k) {
				t.Errorf("the page shows a key (%q):\n%s", k, body)
			}
		}
		return body
	}

	offline := page(http.MethodGet, nil)
	for _, want := range []string{"<strong>Config dir</strong>", "GEMINI_API_KEY ••••LMNO", "not used (GEMINI_BACKEND=api)",
		"not queried (--offline)"} {
		if !strings.Contains(offline, want) {
			t.Errorf("the checklist lacks %q:\n%s", want, offline)
		}
	}
	if n := len(mock.Requests()); n != 0 {
		t.Errorf("opening the page sent %d queries, want none", n)
	}

	csrf := csrfRE.FindStringSubmatch(offline)
	if csrf == nil {
		t.Fatalf("no CSRF token in:\n%s", offline)
	}
	queried := page(http.MethodPost, url.Values{"csrf": {csrf[1]}})
	for _, want := range []string{"the key in GEMINI_API_KEY (••••LMNO) was rejected", `<p class="fix">fix: `} {
		if !strings.Contains(queried, want) {
			t.Errorf("the checklist after the queries lacks %q:\n%s", want, queried)
		}
	}
	if n := len(mock.Requests()); n == 0 {
		t.Error("Run the real queries sent no query to the API")
	}

	// The configuration in force, not the one the tray started with.
	if _, err := c.SaveDotenv([]byte(apiOnly + newKey + "\n")); err != nil {
		t.Fatal(err)
	}
	if after := page(http.MethodGet, nil); !strings.Contains(after, "GEMINI_API_KEY ••••WXYZ") {
		t.Errorf("the checklist is not the saved configuration's:\n%s", after)
	}
}
