package tools

import (
	"context"
	"strings"
	"testing"
)

// TestPublicURL: fetch reads public http(s) pages only: never this machine, its network, or another scheme.
func TestPublicURL(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"http://127.0.0.1/", "http://127.0.0.1:3000/mcp", "https://localhost/x", "http://app.localhost/",
		"http://[::1]/", "http://10.0.0.7/admin", "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data/",
		"http://[fe80::1]/", "http://0.0.0.0/", "file:///etc/passwd", "ftp://example.com/x", "example.com/page", "http:///x",
		"http://printer.local/", "http://[::ffff:127.0.0.1]/", "http://2130706433/", "http://0177.0.0.1/",
		"http://0x7f.0.0.1/", "http://0x7f000001/", "http://127.1/", "http://127。0。0。1/", "http://[::127.0.0.1]/",
		"http://[64:ff9b::7f00:1]/", "http://[fec0::1]/", "http://100.64.1.1/", "http://0.1.2.3/", "http://255.255.255.255/",
		"http://user:pw@example.com/", "https://name-that-does-not-resolve.invalid/"} {
		if got, err := publicURL(context.Background(), bad); err == nil {
			t.Errorf("publicURL(%q) = %q, want it refused", bad, got)
		}
	}
	// Names are checked by what they resolve to, which a machine without a network cannot: addresses alone here.
	for _, good := range []string{"http://93.184.215.14/", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/path?q=1",
		"http://[64:ff9b::5db8:d70e]/"} {
		if _, err := publicURL(context.Background(), good); err != nil {
			t.Errorf("publicURL(%q): %v", good, err)
		}
	}
	// A name in any script is a host name: it is looked up in its ASCII form.
	if _, err := publicURL(context.Background(), "https://bücher.invalid/"); err == nil || !strings.Contains(err.Error(), "does not resolve") {
		t.Errorf("an international name: %v, want it looked up", err)
	}
	if _, err := publicURL(context.Background(), "http://127.0.0.1/"); !strings.Contains(err.Error(), "loopback") {
		t.Errorf("the refusal does not say why: %v", err)
	}
}
