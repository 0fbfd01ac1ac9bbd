package gateway

import (
	"strings"
	"testing"
)

func TestHostGuard(t *testing.T) {
	accepted := []string{
		"localhost", "localhost:7391", "LOCALHOST", "LocalHost:80", "localhost.", "localhost.:7391",
		"127.0.0.1", "127.0.0.1:7391", "127.0.0.2", "127.1.2.3:1", "127.255.255.255:65535",
		"[::1]", "[::1]:7391", "::1", "[0:0:0:0:0:0:0:1]:7391",
	}
	refused := []string{
		"", ":7391", "evil.example", "evil.example:7391",
		"127.0.0.1.evil.example", "127.0.0.1.evil.example:7391", "localhost.evil.example", "localhost.evil.example:7391",
		"evil-localhost", "localhostevil", "localhost..", "xlocalhost",
		"0.0.0.0", "0.0.0.0:7391", "0", "[::]:7391", "[::]",
		"192.168.1.10", "192.168.1.10:7391", "10.0.0.1:7391", "172.16.0.1",
		"128.0.0.1", "126.255.255.255",
		"[::ffff:127.0.0.1]:7391", "::ffff:127.0.0.1", "[::ffff:7f00:1]",
		"127.1", "127.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.000.000.001",
		"127.0.0.1.", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:http", "127.0.0.1:7391:1",
		"[::1", "[::1]x", "[::1]:", "[::1]:abc", "[127.0.0.1]", "::1:7391", "[::1%lo]:7391", "[fe80::1%25lo]",
		"localhost:7391/path", "user@localhost", "localhost#", " localhost", "localhost ",
		"console.example.com",
	}
	for _, h := range accepted {
		t.Run(quoteName(h)+"_is_accepted", func(t *testing.T) {
			if !IsLoopbackHost(h) {
				t.Errorf("IsLoopbackHost(%q) = false", h)
			}
		})
	}
	for _, h := range refused {
		t.Run(quoteName(h)+"_is_refused", func(t *testing.T) {
			if IsLoopbackHost(h) {
				t.Errorf("IsLoopbackHost(%q) = true", h)
			}
		})
	}
}

func TestHostedHostOnlyOnHostedRows(t *testing.T) {
	l := &Listener{hostedHost: "console.example.com", hostedPort: "443"}
	cases := []struct {
		host   string
		hosted bool
		want   bool
	}{
		{"console.example.com", true, true},
		{"Console.Example.com:443", true, true},
		{"console.example.com", false, false},
		{"console.example.com:8443", true, false},
		{"console.example.com.evil.example", true, false},
		{"evil.console.example.com", true, false},
		{"console.example.com.", true, false},
		{"127.0.0.1:7391", false, true},
	}
	for _, c := range cases {
		if got := l.hostAllowed(c.host, c.hosted); got != c.want {
			t.Errorf("hostAllowed(%q, hosted=%v) = %v, want %v", c.host, c.hosted, got, c.want)
		}
	}
}

func TestOriginCheck(t *testing.T) {
	hosted, _ := parseOrigin("https://console.example.com")
	p := &originPolicy{port: "7391", hosted: &hosted}
	cases := []struct {
		origin       string
		hosted       bool
		allowed      bool
		cors         bool
		whyInTheName string
	}{
		{"http://127.0.0.1:7391", false, true, true, "the loopback page"},
		{"http://localhost:7391", false, true, true, "localhost on the port"},
		{"HTTP://LOCALHOST:7391", false, true, true, "case does not matter"},
		{"http://[::1]:7391", false, true, false, "the IPv6 loopback page is same-origin only"},
		{"https://console.example.com", true, true, true, "the hosted console on a hosted row"},
		{"https://console.example.com:443", true, true, true, "the default port written out"},
		{"https://Console.Example.COM", true, true, true, "host case"},
		{"https://console.example.com", false, false, false, "the hosted console on a loopback-only row"},
		{"http://console.example.com", true, false, false, "http instead of https"},
		{"https://console.example.com.evil.example", true, false, false, "hosted origin as a prefix"},
		{"https://evil.console.example.com", true, false, false, "hosted origin as a suffix"},
		{"https://console.example.com:8443", true, false, false, "another port of the hosted host"},
		{"https://console.example.com/", true, false, false, "a path"},
		{"https://user@console.example.com", true, false, false, "user info"},
		{"null", false, false, false, "null"},
		{"http://127.0.0.1:7392", false, false, false, "another loopback port"},
		{"http://127.0.0.1", false, false, false, "the default port is not the listener's"},
		{"https://127.0.0.1:7391", false, false, false, "https on the loopback port"},
		{"http://127.0.0.2:7391", false, false, false, "other 127/8 addresses are not pages we serve"},
		{"http://127.0.0.1.evil.example:7391", false, false, false, "loopback as a prefix"},
		{"http://localhost.evil.example:7391", false, false, false, "localhost as a prefix"},
		{"http://evil.example", false, false, false, "a foreign site"},
		{"http://192.168.1.10:7391", false, false, false, "a LAN address"},
		{"http://0.0.0.0:7391", false, false, false, "0.0.0.0"},
		{"http://[::ffff:127.0.0.1]:7391", false, false, false, "IPv4-mapped"},
		{"http://localhost.:7391", false, false, false, "trailing dot"},
		{"file://", false, false, false, "file origin"},
		{"chrome-extension://abcdef", false, false, false, "an extension"},
		{"http://127.0.0.1:7391/", false, false, false, "a trailing slash"},
		{"http://127.0.0.1:07391", false, false, false, "a padded port"},
		{"", false, false, false, "empty"},
	}
	for _, c := range cases {
		verdict := "is_refused"
		if c.allowed {
			verdict = "is_allowed"
		}
		t.Run(quoteName(c.origin)+"_"+verdict+"_("+strings.ReplaceAll(c.whyInTheName, " ", "_")+")", func(t *testing.T) {
			if got := p.allowed(c.origin, c.hosted); got != c.allowed {
				t.Errorf("allowed(%q, hosted=%v) = %v", c.origin, c.hosted, got)
			}
			if got := p.corsAllowed(c.origin, c.hosted); got != c.cors {
				t.Errorf("corsAllowed(%q, hosted=%v) = %v, want %v", c.origin, c.hosted, got, c.cors)
			}
		})
	}
}

func quoteName(s string) string {
	if s == "" {
		return `""`
	}
	return `"` + strings.ReplaceAll(s, "/", "∕") + `"`
}

func FuzzHostGuard(f *testing.F) {
	for _, s := range []string{"localhost", "127.0.0.1:7391", "[::1]:80", "127.0.0.1.evil.example", "[::ffff:127.0.0.1]", "localhost."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !IsLoopbackHost(host) {
			return
		}
		// Whatever is accepted names loopback: a host part that is
		// localhost or parses as a loopback address, and a numeric port.
		h, port, ok := splitHostPort(host)
		if !ok {
			t.Fatalf("accepted %q that does not split", host)
		}
		if port != "" && !isPort(port) {
			t.Fatalf("accepted %q with port %q", host, port)
		}
		low := strings.ToLower(h)
		if low != "localhost" && low != "localhost." && !strings.HasPrefix(low, "127.") && !strings.Contains(low, ":") {
			t.Fatalf("accepted %q: host %q is not loopback", host, h)
		}
		if strings.ContainsAny(host, "/@# \t%?") {
			t.Fatalf("accepted %q with a character a host never has", host)
		}
	})
}

func FuzzOriginCheck(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:7391", "https://console.example.com", "null", "http://localhost:7391", "https://console.example.com.evil.example"} {
		f.Add(s)
	}
	hosted, _ := parseOrigin("https://console.example.com")
	p := &originPolicy{port: "7391", hosted: &hosted}
	allowedSet := map[string]bool{
		"http://127.0.0.1:7391": true, "http://localhost:7391": true, "http://[::1]:7391": true,
		"https://console.example.com": true, "https://console.example.com:443": true,
	}
	f.Fuzz(func(t *testing.T, origin string) {
		if p.allowed(origin, true) && !allowedSet[strings.ToLower(origin)] {
			t.Fatalf("allowed %q, which is not one of the listed origins", origin)
		}
		if p.corsAllowed(origin, true) && !p.allowed(origin, true) {
			t.Fatalf("CORS for %q, which the origin check refuses", origin)
		}
	})
}
