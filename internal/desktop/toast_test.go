package desktop

import (
	"encoding/xml"
	"slices"
	"testing"
)

// A toast opens its link on a click and from its button; a failure is a reminder, which Windows keeps on screen
// until it is dismissed, with the system's Dismiss button and a sound; the others go quietly after the short time.
func TestToastXML(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		n    Notification
		icon string
		want string
	}{
		{"finished", Notification{Title: "Research finished", Body: `search "x" · 3s`,
			Link: "http://127.0.0.1:1/report?id=1&token=t", LinkLabel: "Open report"}, `C:\cache\icon.png`,
			`<toast activationType="protocol" launch="http://127.0.0.1:1/report?id=1&amp;token=t" duration="short">` +
				`<visual><binding template="ToastGeneric"><image placement="appLogoOverride" src="C:\cache\icon.png"></image>` +
				`<text>Research finished</text><text>search &#34;x&#34; · 3s</text></binding></visual>` +
				`<audio silent="true"></audio><actions><action activationType="protocol" content="Open report" ` +
				`arguments="http://127.0.0.1:1/report?id=1&amp;token=t"></action></actions></toast>`},
		{"failed", Notification{Title: "Research failed", Body: "QUOTA_ERROR", Link: "http://127.0.0.1:1/status#errors",
			LinkLabel: "Show the error", Sticky: true}, "",
			`<toast activationType="protocol" launch="http://127.0.0.1:1/status#errors" duration="long" scenario="reminder">` +
				`<visual><binding template="ToastGeneric"><text>Research failed</text><text>QUOTA_ERROR</text></binding></visual>` +
				`<actions><action activationType="protocol" content="Show the error" arguments="http://127.0.0.1:1/status#errors">` +
				`</action><action activationType="system" content="" arguments="dismiss"></action></actions></toast>`},
		{"plain", Notification{Title: "Copied"}, "",
			`<toast duration="short"><visual><binding template="ToastGeneric"><text>Copied</text></binding></visual>` +
				`<audio silent="true"></audio></toast>`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := toastOf(tt.n, tt.icon)
			if err != nil || got != tt.want {
				t.Errorf("toast (%v):\n%s\nwant\n%s", err, got, tt.want)
			}
		})
	}
}

// What a toast says reaches Windows as typed: markup, and the $ and ` that the PowerShell fallback would read as
// its own, are character references.
func TestToastTextAsTyped(t *testing.T) {
	t.Parallel()
	n := Notification{Title: "C++ <vector> & more", Body: "set $HOME or `cmd` ]]> \"quoted\"",
		Link: "http://127.0.0.1:1/x?a=$b", LinkLabel: "Open"}
	doc, err := toastOf(n, "")
	if err != nil {
		t.Fatal(err)
	}
	var back toastXML
	if err := xml.Unmarshal([]byte(doc), &back); err != nil {
		t.Fatalf("the toast is no XML: %v\n%s", err, doc)
	}
	if want := []string{n.Title, n.Body}; !slices.Equal(back.Binding.Text, want) || back.Launch != n.Link {
		t.Errorf("the toast reads %q, launch %q; want %q, %q", back.Binding.Text, back.Launch, want, n.Link)
	}
	for _, c := range []rune{'$', '`'} {
		if slices.Contains([]rune(doc), c) {
			t.Errorf("the toast holds a %q as such:\n%s", c, doc)
		}
	}
}
