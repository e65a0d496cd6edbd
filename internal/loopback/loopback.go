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

// Rebound reports whether a request that arrived on localAddr, a loopback address, names a Host that is not
// loopback: a page of another site whose name now resolves to 127.0.0.1 (DNS rebinding). A request that arrived on
// another address is left to the token.
func Rebound(localAddr, host string) bool { return IsAddr(localAddr) && !IsAddr(host) }

// AllowedHost accepts a request's Host (host[:port]) when it is loopback or the host the server was configured to
// bind; any other name may be a DNS-rebinding page.
func AllowedHost(host, configured string) bool {
	host = HostOnly(host)
	return IsHost(host) || strings.EqualFold(host, configured)
}

// SameOrigin reports whether a browser's origin is this very server as the browser reached it (host is the
// request's Host), over plain http: the pages accept a form from nowhere else.
func SameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Scheme == "http" && strings.EqualFold(u.Host, host)
}
