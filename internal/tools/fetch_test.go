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
		"http://printer.local/", "http://[::ffff:127.0.0.1]/"} {
		if got, err := publicURL(context.Background(), bad); err == nil {
			t.Errorf("publicURL(%q) = %q, want it refused", bad, got)
		}
	}
	for _, good := range []string{"https://example.com/article?x=1", "http://93.184.215.14/", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/"} {
		if _, err := publicURL(context.Background(), good); err != nil {
			t.Errorf("publicURL(%q): %v", good, err)
		}
	}
	if _, err := publicURL(context.Background(), "http://127.0.0.1/"); !strings.Contains(err.Error(), "loopback") {
		t.Errorf("the refusal does not say why: %v", err)
	}
}
