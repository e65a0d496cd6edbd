// Package loopback holds the rules that keep the local server local: which hosts are this machine's loopback, and
// which browser origins may talk to it. The MCP endpoint, the pages and the start-up exposure check all use them.
package loopback

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// IsHost reports whether host (a name or IP, without port) is localhost or a loopback address.
func IsHost(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// IsAddr reports whether a host:port address is on loopback.
func IsAddr(hostport string) bool { return IsHost(HostOnly(hostport)) }

// HostOnly strips the port from host:port; a bare host is returned as it is.
func HostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// AllowedOrigin accepts browser origins on loopback and the server's own origin (host is the request's Host);
// anything else could be a web page driving the user's browser against the local server.
func AllowedOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsHost(u.Hostname()) || strings.EqualFold(u.Host, host)
}
