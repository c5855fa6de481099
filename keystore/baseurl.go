package keystore

import (
	"net"
	"net/url"
	"strings"
)

// NormalizeBaseURL returns the keyring user name for a service base URL: scheme, host and path,
// with the scheme and host in lower case, the scheme's default port dropped and no trailing slash.
// User info, query and fragment are dropped, so "HTTPS://API.Example.com:443/v1/" and
// "https://api.example.com/v1" name the same key. Text that does not parse as an absolute URL is
// returned trimmed of spaces and trailing slashes, and Store's methods refuse it.
func NormalizeBaseURL(u string) string {
	u = strings.TrimSpace(u)
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" || p.Host == "" || p.Opaque != "" {
		return strings.TrimRight(u, "/")
	}
	scheme := strings.ToLower(p.Scheme)
	host := strings.ToLower(p.Host)
	if h, port, err := net.SplitHostPort(host); err == nil {
		if port == "" || (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
			host = h
			if strings.Contains(h, ":") {
				host = "[" + h + "]" // IPv6 literal
			}
		}
	}
	return scheme + "://" + host + strings.TrimRight(p.EscapedPath(), "/")
}

// isAbsoluteURL reports whether a normalized base URL has a scheme and a host.
func isAbsoluteURL(normalized string) bool {
	p, err := url.Parse(normalized)
	return err == nil && p.Scheme != "" && p.Host != "" && p.Opaque == ""
}
