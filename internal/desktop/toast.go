package desktop

import (
	"encoding/xml"
	"strings"
)

// The Windows toast of a Notification, in the toast XML schema
// (learn.microsoft.com/uwp/schemas/tiles/toastschema). It is written here rather than by go-toast's Notification,
// whose template has no scenario attribute: a failure is a "reminder", which Windows keeps on screen until the user
// dismisses it, where a long toast goes after 25 seconds. A reminder needs a button, so it has the system's Dismiss
// beside the link's. Built on every platform, so that its tests run everywhere.
type toastXML struct {
	XMLName        xml.Name      `xml:"toast"`
	ActivationType string        `xml:"activationType,attr,omitempty"`
	Launch         string        `xml:"launch,attr,omitempty"`
	Duration       string        `xml:"duration,attr"`
	Scenario       string        `xml:"scenario,attr,omitempty"`
	Binding        toastBinding  `xml:"visual>binding"`
	Audio          *toastAudio   `xml:"audio"`
	Actions        *toastActions `xml:"actions"` // nil: none (an empty actions element is no valid toast)
}

type toastBinding struct {
	Template string      `xml:"template,attr"`
	Image    *toastImage `xml:"image"`
	Text     []string    `xml:"text"`
}

type toastImage struct {
	Placement string `xml:"placement,attr"`
	Src       string `xml:"src,attr"`
}

type toastAudio struct {
	Silent bool `xml:"silent,attr"`
}

type toastActions struct {
	Action []toastAction `xml:"action"`
}

type toastAction struct {
	ActivationType string `xml:"activationType,attr"`
	Content        string `xml:"content,attr"` // "" for a system action: Windows labels it in the user's language
	Arguments      string `xml:"arguments,attr"`
}

// toastOf is the toast XML of n with the icon at path icon ("": none). A click on the toast, or on its button, has
// Windows open the link (protocol activation), with no process of ours listening. A toast that is not sticky
// goes after the short duration, silently.
func toastOf(n Notification, icon string) (string, error) {
	t := toastXML{Duration: "short", Audio: &toastAudio{Silent: true}, Binding: toastBinding{Template: "ToastGeneric"}}
	for _, text := range []string{n.Title, n.Body} {
		if text != "" {
			t.Binding.Text = append(t.Binding.Text, text)
		}
	}
	if icon != "" {
		t.Binding.Image = &toastImage{Placement: "appLogoOverride", Src: icon}
	}
	var actions []toastAction
	if n.Link != "" {
		t.ActivationType, t.Launch = "protocol", n.Link
		actions = append(actions, toastAction{ActivationType: "protocol", Content: n.LinkLabel, Arguments: n.Link})
	}
	if n.Sticky {
		t.Duration, t.Scenario, t.Audio = "long", "reminder", nil // nil: the default sound
		actions = append(actions, toastAction{ActivationType: "system", Arguments: "dismiss"})
	}
	if actions != nil {
		t.Actions = &toastActions{actions}
	}
	out, err := xml.Marshal(t)
	if err != nil {
		return "", err
	}
	// Where the toast goes through go-toast's PowerShell fallback, the XML sits in a double-quoted here-string,
	// which reads $ and ` as its own: as character references they reach Windows as typed. Both occur only in
	// text and attribute values.
	return strings.NewReplacer("$", "&#36;", "`", "&#96;").Replace(string(out)), nil
}
