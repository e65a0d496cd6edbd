package tray

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeController answers the page URLs and records what the menu reports; the rest of Actions is not used.
type fakeController struct {
	Actions
	urlErr error // what the URL methods fail with

	mu       sync.Mutex
	reported []string
}

func (f *fakeController) PageURL(page string) (string, error) {
	if f.urlErr != nil {
		return "", f.urlErr
	}
	return "http://127.0.0.1:3000" + page + "?token=t0k", nil
}

func (f *fakeController) CheckSetup() error { return nil }
func (f *fakeController) ReportURL(id string) (string, error) {
	u, err := f.PageURL("/report")
	return strings.Replace(u, "?", "?id="+id+"&", 1), err
}

func (f *fakeController) Report(what string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reported = append(f.reported, what+": "+err.Error())
}

func TestPageLinks(t *testing.T) {
	t.Parallel()
	var labels []string
	for _, l := range pageLinks {
		labels = append(labels, l.label)
	}
	if want := []string{"Getting started…", "Settings…", "Check setup…", "Open status page"}; !slices.Equal(labels, want) {
		t.Errorf("page items %q, want %q", labels, want)
	}

	tests := []struct {
		name     string
		link     pageLink
		openErr  error
		urlErr   error
		opened   string
		reported string
	}{
		{"settings", settingsLink, nil, nil, "http://127.0.0.1:3000/settings?token=t0k", ""},
		{"setup", setupLink, nil, nil, "http://127.0.0.1:3000/setup?token=t0k", ""},
		{"status", statusLink, nil, nil, "http://127.0.0.1:3000/status?token=t0k", ""},
		{"all research", historyLink, nil, nil, "http://127.0.0.1:3000/history?token=t0k", ""},
		{"setup, no browser", setupLink, errors.New("xdg-open is not installed"), nil,
			"http://127.0.0.1:3000/setup?token=t0k", "open the setup check: xdg-open is not installed"},
		{"setup, pages not served", setupLink, nil, errors.New("the server is closed"), "",
			"open the setup check: the server is closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctl := &fakeController{urlErr: tt.urlErr}
			var opened []string
			m := newMenu(Options{Actions: ctl, Pages: ctl, Open: func(target string) error {
				opened = append(opened, target)
				return tt.openErr
			}})
			m.open(tt.link)
			if tt.opened == "" && len(opened) > 0 || tt.opened != "" && !slices.Equal(opened, []string{tt.opened}) {
				t.Errorf("opened %q, want %q", opened, tt.opened)
			}
			var want []string
			if tt.reported != "" {
				want = []string{tt.reported}
			}
			if !slices.Equal(ctl.reported, want) {
				t.Errorf("reported %q, want %q", ctl.reported, want)
			}
		})
	}
}

// TestOpenReport: a line of Recent research opens the page of the report it shows, with the token; a failure shows
// among the last errors.
func TestOpenReport(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		line     int
		urlErr   error
		opened   []string
		reported []string
	}{
		{"first", 0, nil, []string{"http://127.0.0.1:3000/report?id=id-0&token=t0k"}, nil},
		{"second", 1, nil, []string{"http://127.0.0.1:3000/report?id=id-1&token=t0k"}, nil},
		{"a line no longer shown", 2, nil, nil, nil},
		{"pages not served", 0, errors.New("the server is closed"), nil, []string{"open a report: the server is closed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctl := &fakeController{urlErr: tt.urlErr}
			var opened []string
			m := newMenu(Options{Actions: ctl, Pages: ctl, Open: func(target string) error {
				opened = append(opened, target)
				return nil
			}})
			m.shown.RecentIDs = []string{"id-0", "id-1"}
			m.openReport(tt.line)
			if !slices.Equal(opened, tt.opened) {
				t.Errorf("opened %q, want %q", opened, tt.opened)
			}
			if !slices.Equal(ctl.reported, tt.reported) {
				t.Errorf("reported %q, want %q", ctl.reported, tt.reported)
			}
		})
	}
}

// TestOpenSetupLine: a line of Setup opens the setup page at its check, after looking the setup up again.
func TestOpenSetupLine(t *testing.T) {
	t.Parallel()
	ctl := &fakeController{}
	var opened []string
	m := newMenu(Options{Actions: ctl, Pages: ctl, Open: func(target string) error {
		opened = append(opened, target)
		return nil
	}})
	m.shown.SetupAnchors = []string{"check-gemini-cli", "check-auth"}
	m.openSetup(1)
	m.openSetup(5) // a line no longer shown: the page's top
	want := []string{"http://127.0.0.1:3000/setup?token=t0k#check-auth", "http://127.0.0.1:3000/setup?token=t0k"}
	if !slices.Equal(opened, want) {
		t.Errorf("opened %q, want %q", opened, want)
	}
}
