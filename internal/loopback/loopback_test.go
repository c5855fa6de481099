package loopback_test

import (
	"testing"

	"parley/internal/loopback"
)

func TestHost(t *testing.T) {
	for _, tt := range []struct {
		host string
		want bool
		why  string
	}{
		{"localhost", true, "the name of this computer"},
		{"LOCALHOST.", true, "any case, and the final dot of a fully qualified name"},
		{"Localhost", true, "any case"},
		{"localhost..", false, "one final dot only"},
		{"localhost.example.com", false, "a name in another domain"},
		{"app.localhost", false, "a name under localhost: a resolver may send it elsewhere"},
		{"127.0.0.1", true, "the loopback address"},
		{"127.0.0.2", true, "all of 127.0.0.0/8 is loopback"},
		{"127.255.255.254", true, "all of 127.0.0.0/8 is loopback"},
		{"127.0.0.1.", false, "an address has no final dot"},
		{"127.1", false, "a shortened form net.ParseIP refuses"},
		{"128.0.0.1", false, "outside 127.0.0.0/8"},
		{"10.0.0.1", false, "a private address is another computer"},
		{"::1", true, "the IPv6 loopback address"},
		{"0:0:0:0:0:0:0:1", true, "::1 written out"},
		{"[::1]", true, "::1 in a URL's brackets"},
		{"::ffff:127.0.0.1", true, "an IPv4-mapped loopback address"},
		{"[::ffff:127.0.0.2]", true, "an IPv4-mapped loopback address in brackets"},
		{"::2", false, "not ::1"},
		{"::1%lo", false, "an address with a zone"},
		{"0.0.0.0", false, "every interface, which other computers reach"},
		{"::", false, "every interface, which other computers reach"},
		{"[::]", false, "every interface, which other computers reach"},
		{"", false, "no host"},
		{"[]", false, "no host"},
		{"localhost:8780", false, "a host with a port"},
		{"127.0.0.1:8780", false, "a host with a port"},
		{" localhost", false, "text with a space"},
		{"example.com", false, "another computer"},
	} {
		if got := loopback.Host(tt.host); got != tt.want {
			t.Errorf("Host(%q) = %v, want %v: %s", tt.host, got, tt.want, tt.why)
		}
	}
}

func TestURL(t *testing.T) {
	for _, tt := range []struct {
		url  string
		want bool
	}{
		{"http://127.0.0.1:8780", true},
		{"http://127.10.20.30:8780/v1", true},
		{"http://[::1]:8780/v1", true},
		{"https://localhost", true},
		{"http://LOCALHOST./v1", true},
		{"http://user@localhost:8780", true},
		{"http://localhost.example.com", false},
		{"http://0.0.0.0:8780", false},
		{"http://[::2]:80", false},
		{"https://api.example.com/v1", false},
		{"127.0.0.1:8780", false}, // no scheme: not a URL with a host
		{"localhost", false},      // a path, not a host
		{"http://%zz", false},     // does not parse
		{"", false},
	} {
		if got := loopback.URL(tt.url); got != tt.want {
			t.Errorf("URL(%q) = %v, want %v", tt.url, got, tt.want)
		}
	}
}
