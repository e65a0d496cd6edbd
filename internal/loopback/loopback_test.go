package loopback

import "testing"

func TestIsHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		host string
		want bool
	}{
		{"127.0.0.1", true},
		{"127.8.9.10", true},
		{"::1", true},
		{"[::1]", true},
		{"localhost", true},
		{"LocalHost", true},
		{"0.0.0.0", false},
		{"192.168.1.2", false},
		{"localhost.evil.example", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsHost(tt.host); got != tt.want {
			t.Errorf("IsHost(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestIsAddr(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]bool{"127.0.0.1:3000": true, "[::1]:80": true, "10.0.0.1:3000": false, "localhost": true} {
		if got := IsAddr(addr); got != want {
			t.Errorf("IsAddr(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestAllowedOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		origin, host string
		want         bool
	}{
		{"http://127.0.0.1:3000", "127.0.0.1:3000", true},
		{"http://[::1]:8080", "127.0.0.1:3000", true},
		{"https://localhost", "127.0.0.1:3000", true},
		{"https://research.example.com", "research.example.com", true},
		{"https://evil.example", "127.0.0.1:3000", false},
		{"http://127.0.0.1.evil.example", "127.0.0.1:3000", false},
		{"file://", "127.0.0.1:3000", false},
		{"null", "127.0.0.1:3000", false},
	}
	for _, tt := range tests {
		if got := AllowedOrigin(tt.origin, tt.host); got != tt.want {
			t.Errorf("AllowedOrigin(%q, %q) = %v, want %v", tt.origin, tt.host, got, tt.want)
		}
	}
}

func TestHostRules(t *testing.T) {
	t.Parallel()
	if !Rebound("127.0.0.1:3000", "evil.example:3000") || Rebound("127.0.0.1:3000", "localhost:3000") ||
		Rebound("192.168.1.2:3000", "my-pc.lan:3000") {
		t.Error("Rebound: want only a non-loopback Host on a loopback connection refused")
	}
	if !AllowedHost("127.0.0.1:3000", "127.0.0.1") || !AllowedHost("my-pc.lan:3000", "my-pc.lan") ||
		AllowedHost("evil.example:3000", "127.0.0.1") {
		t.Error("AllowedHost: want loopback and the configured host only")
	}
	if !SameOrigin("http://127.0.0.1:3000", "127.0.0.1:3000") || SameOrigin("http://127.0.0.1:3001", "127.0.0.1:3000") ||
		SameOrigin("https://127.0.0.1:3000", "127.0.0.1:3000") || SameOrigin("null", "127.0.0.1:3000") {
		t.Error("SameOrigin: want this very server over http only")
	}
}
