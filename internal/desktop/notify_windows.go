package desktop

import (
	"bytes"
	"encoding/xml"
	"strings"

	"git.sr.ht/~jackmordaunt/go-toast"
)

// platformNotifier shows toasts through the Windows Runtime: a click on the toast, or on its button, has Windows
// open the link (protocol activation), with no process of ours listening. A sticky toast stays for the long
// duration (25 seconds), then waits in the Action Center.
type platformNotifier struct{}

func (platformNotifier) show(o NotifierOptions, n Notification, icon string) error {
	t := toast.Notification{AppID: o.AppName, Title: cdata(n.Title), Body: cdata(n.Body), Icon: icon,
		Audio: toast.Silent, Duration: toast.Short}
	if n.Sticky {
		t.Audio, t.Duration = toast.Default, toast.Long
	}
	if n.Link != "" {
		// go-toast writes these into XML attributes as they are (text/template): escape them.
		link := xmlAttr(n.Link)
		t.ActivationType, t.ActivationArguments = toast.Protocol, link
		t.Actions = []toast.Action{{Type: toast.Protocol, Content: xmlAttr(n.LinkLabel), Arguments: link}}
	}
	return t.Push()
}

func (platformNotifier) close() {}

func xmlAttr(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // never fails on a bytes.Buffer
	return b.String()
}

// cdata is s made safe inside the CDATA section go-toast puts the title and body in.
func cdata(s string) string { return strings.ReplaceAll(s, "]]>", "]] >") }
