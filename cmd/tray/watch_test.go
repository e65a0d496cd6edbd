package main

// The tray watches the config dir: these tests edit .env and .gemini/settings.json as a person or an editor
// would, and check what the running (headless) tray made of it.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

var pageURLRE = regexp.MustCompile(`settings="(http://[^"]+)/settings\?token=([0-9a-f]+)"`)

// pages waits for the headless tray to log its pages and returns their base URL and the token.
func (p *trayProc) pages(t *testing.T) (base, token string) {
	t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	for time.Now().Before(deadline) {
		if m := pageURLRE.FindStringSubmatch(p.stderr.String()); m != nil {
			return m[1], m[2]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the tray logged no settings URL:\n%s", p.stderr.String())
	return "", ""
}

// statusPage returns the /status page's HTML.
func statusPage(t *testing.T, base, token string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	return fetch(t, &http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}, http.MethodGet, base+"/status?token="+token, nil, "")
}

type settingsFile struct {
	General struct {
		MaxAttempts int `json:"maxAttempts"`
	} `json:"general"`
	Tools struct {
		Core []string `json:"core"`
	} `json:"tools"`
	MCPServers map[string]json.RawMessage `json:"mcpServers"`
	UI         map[string]any             `json:"ui"`
}

func readSettings(path string) (settingsFile, error) {
	var s settingsFile
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	return s, err
}

func hasFirecrawl(path string) bool {
	s, err := readSettings(path)
	return err == nil && s.MCPServers["firecrawl"] != nil && slices.Contains(s.Tools.Core, "mcp_firecrawl_firecrawl_scrape")
}

func TestWatchDotenv(t *testing.T) {
	t.Parallel()
	p := startTray(t, trayOptions{headless: true})
	p.pages(t)
	settings := filepath.Join(p.configDir, ".gemini", "settings.json")
	dotenv := filepath.Join(p.configDir, ".env")
	if hasFirecrawl(settings) {
		t.Fatal("Firecrawl is on before any key was set")
	}

	// A user's own entry must survive every regeneration.
	if err := os.WriteFile(settings, []byte(`{"ui":{"theme":"mine"},"general":{"maxAttempts":3},"tools":{"core":["google_web_search","web_fetch"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)

	// Atomic replace, as the settings page and many editors do.
	tmp := filepath.Join(p.configDir, ".env.tmp")
	if err := os.WriteFile(tmp, []byte("# keys\nFIRECRAWL_API_KEY=fc-watch-test-1234\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dotenv); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "Firecrawl in settings.json after .env got a key", func() bool { return hasFirecrawl(settings) })
	if s, _ := readSettings(settings); s.UI["theme"] != "mine" {
		t.Errorf("the user's ui.theme was lost: %+v", s)
	}

	// vim-style save: rename away, write anew, remove the backup.
	if err := os.Rename(dotenv, dotenv+"~"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dotenv, []byte("# keys\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(dotenv + "~")
	testkit.WaitFor(t, "Firecrawl gone from settings.json after the key was removed", func() bool {
		s, err := readSettings(settings)
		return err == nil && s.MCPServers["firecrawl"] == nil && !slices.Contains(s.Tools.Core, "mcp_firecrawl_firecrawl_scrape")
	})
	if s, _ := readSettings(settings); s.UI["theme"] != "mine" {
		t.Errorf("the user's ui.theme was lost: %+v", s)
	}
}

func TestWatchSettingsJSON(t *testing.T) {
	t.Parallel()
	p := startTray(t, trayOptions{headless: true})
	base, token := p.pages(t)
	settings := filepath.Join(p.configDir, ".gemini", "settings.json")

	// Deleted: written again.
	if err := os.Remove(settings); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "settings.json to be written again", func() bool { _, err := readSettings(settings); return err == nil })

	// Edited, owned entry removed: put back, the user's edit kept.
	if err := os.WriteFile(settings, []byte(`{"ui":{"theme":"mine"},"tools":{"core":["google_web_search"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "general.maxAttempts to come back", func() bool {
		s, err := readSettings(settings)
		return err == nil && s.General.MaxAttempts == 3 && s.UI["theme"] == "mine" && slices.Equal(s.Tools.Core, []string{"google_web_search"})
	})

	// Invalid JSON: left alone, shown among the last errors.
	broken := "{\n  \"ui\": {\"theme\": \"mine\",}\n"
	if err := os.WriteFile(settings, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the invalid settings.json among the last errors", func() bool {
		return strings.Contains(statusPage(t, base, token), "SETTINGS_ERROR")
	})
	if page := statusPage(t, base, token); !strings.Contains(page, "settings.json:2:") {
		t.Errorf("the error does not say where the JSON is broken:\n%s", page)
	}
	time.Sleep(300 * time.Millisecond)
	if data, _ := os.ReadFile(settings); string(data) != broken {
		t.Fatalf("the invalid settings.json was overwritten: %q", data)
	}

	// A later regeneration (the config changed) replaces it and keeps a .bak.
	if err := os.WriteFile(filepath.Join(p.configDir, ".env"), []byte("FIRECRAWL_API_URL=http://127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "settings.json replaced with Firecrawl", func() bool { return hasFirecrawl(settings) })
	if data, err := os.ReadFile(settings + ".bak"); err != nil || string(data) != broken {
		t.Errorf("settings.json.bak holds %q (%v), want the broken file", data, err)
	}
}

func TestWatchGeminiFolderDeleted(t *testing.T) {
	t.Parallel()
	p := startTray(t, trayOptions{headless: true})
	p.pages(t)
	folder := filepath.Join(p.configDir, ".gemini")
	settings := filepath.Join(folder, "settings.json")

	// Deleted whole, again and again: written again each time.
	for i := 1; i <= 2; i++ {
		if err := os.RemoveAll(folder); err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, fmt.Sprintf("settings.json to be written again after deletion %d of .gemini", i), func() bool {
			s, err := readSettings(settings)
			return err == nil && s.General.MaxAttempts == 3
		})
	}

	// Still watched: an edit that drops an owned entry gets it back, the user's edit kept.
	if err := os.WriteFile(settings, []byte(`{"ui":{"theme":"mine"},"tools":{"core":["google_web_search"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "general.maxAttempts to come back after an edit", func() bool {
		s, err := readSettings(settings)
		return err == nil && s.General.MaxAttempts == 3 && s.UI["theme"] == "mine"
	})
}

func TestNoDesktopSession(t *testing.T) {
	t.Parallel()
	// No --headless, but no session bus either (nor one godbus could find or launch): the tray keeps serving
	// without an icon, says where its pages are, and quits cleanly on SIGINT.
	p := startTray(t, trayOptions{noBus: true, env: []string{"XDG_RUNTIME_DIR="}})
	base, token := p.pages(t) // from the first log line naming them, which may come before the one below
	testkit.WaitFor(t, "the log to say there is no tray icon", func() bool { return strings.Contains(p.stderr.String(), "no tray icon") })
	if page := statusPage(t, base, token); !strings.Contains(page, "Running on "+base+"/mcp") {
		t.Errorf("status page:\n%s", page)
	}
	resp, err := http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %v %v", resp, err)
	}
	resp.Body.Close()
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case err := <-p.exited:
		p.exited <- err
		if err != nil {
			t.Errorf("exit: %v, want 0", err)
		}
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("no exit within %v of SIGINT", testkit.WaitLimit)
	}
	if strings.Contains(p.stderr.String(), "panic") {
		t.Errorf("panic in the log:\n%s", p.stderr.String())
	}
}

func TestSettingsPortChange(t *testing.T) {
	t.Parallel()
	p := startTray(t, trayOptions{headless: true, args: []string{}, dotenv: "MCP_SERVER_PORT=" + testkit.FreePort(t) + "\n"})
	base, token := p.pages(t)
	jar, _ := cookiejar.New(nil)
	c := http.Client{Transport: testkit.Client.Transport, Jar: jar, Timeout: testkit.WaitLimit}
	resp, err := c.Get(base + "/settings?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindSubmatch(page)
	if csrf == nil {
		t.Fatalf("no CSRF token in:\n%s", page)
	}

	newPort := testkit.FreePort(t)
	form := url.Values{"csrf": {string(csrf[1])}, "MCP_SERVER_PORT": {newPort}}
	req, _ := http.NewRequest(http.MethodPost, base+"/settings", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	newBase := "http://127.0.0.1:" + newPort
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), newBase+"/settings") {
		t.Fatalf("save: %d, want a page pointing at %s:\n%s", resp.StatusCode, newBase, page)
	}
	testkit.WaitFor(t, "the server on the new port", func() bool { return healthy(newBase) })
	if healthy(base) {
		t.Errorf("the old address %s still answers", base)
	}
	// The cookie is per host, not per port: the pages work at the new address without a new link.
	resp, err = c.Get(newBase + "/settings")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("settings at the new address: %v %v", resp, err)
	}
	resp.Body.Close()
}
