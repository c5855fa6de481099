// Package loopback is Parley's one rule for "this host is this computer": the client sends the
// API key over plain http only to such a host, the service needs no TLS to listen only there,
// the app and the CLI say "this computer" of a service there, and a model runtime there is
// trusted as this computer's.
package loopback

import (
	"net"
	"net/url"
	"strings"
)

// Host reports whether host, a host name or an IP address without a port, is this computer:
//   - "localhost" in any case, with or without the final dot of a fully qualified name
//     ("LOCALHOST." is; "localhost.." and names under it, such as "app.localhost", are not:
//     RFC 6761 reserves them, but a resolver may still send them elsewhere);
//   - an IPv4 address in 127.0.0.0/8, or ::1, written in any form net.ParseIP reads, with the
//     IPv4-mapped form of either (::ffff:127.0.0.1) included;
//   - either of those in the brackets a URL puts around an IPv6 address ("[::1]").
//
// Anything else is not: "" and unparsable text, 0.0.0.0 and :: (every interface, which other
// computers reach too), an address with a zone ("::1%lo"), the shortened forms net.ParseIP
// refuses ("127.1"), a host with a port ("localhost:8780"), and text with spaces.
func Host(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// URL reports whether the host of the URL raw is this computer, by Host's rule; a string that
// does not parse as a URL, or has no host, is not.
func URL(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && Host(u.Hostname())
}
