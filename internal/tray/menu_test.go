package tray

import (
	"errors"
	"slices"
	"sync"
	"testing"
)

// fakeController answers the page URLs and records what the menu reports; the rest of Controller is not used.
type fakeController struct {
	Controller
	urlErr error // what the URL methods fail with

	mu       sync.Mutex
	reported []string
}

func (f *fakeController) url(page string) (string, error) {
	if f.urlErr != nil {
		return "", f.urlErr
	}
	return "http://127.0.0.1:3000" + page + "?token=t0k", nil
}

func (f *fakeController) SettingsURL() (string, error) { return f.url("/settings") }
func (f *fakeController) SetupURL() (string, error)    { return f.url("/setup") }
func (f *fakeController) StatusURL() (string, error)   { return f.url("/status") }

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
	if want := []string{"Settings…", "Check setup…", "Open status page"}; !slices.Equal(labels, want) {
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
			m := newMenu(Options{Controller: ctl, Open: func(target string) error {
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
