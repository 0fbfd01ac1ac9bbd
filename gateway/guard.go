package gateway

import (
	"net/netip"
	"strings"
)

// The Host guard and the Origin check are small pure functions so that their
// tables and fuzzers can drive them directly. Both parse before comparing;
// neither ever matches by prefix or suffix.

// IsLoopbackHost reports whether a Host header names this machine's
// loopback: localhost (any case, one trailing dot allowed), any IPv4 address
// in 127.0.0.0/8 written as a plain dotted quad, or ::1 (bracketed, or bare
// without a port), each with or without a numeric port. IPv4-mapped forms,
// zones, 0.0.0.0 and every other name are refused.
func IsLoopbackHost(host string) bool {
	h, _, ok := splitHostPort(host)
	return ok && isLoopbackName(h)
}

func isLoopbackName(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.EqualFold(h, "localhost.") {
		return true
	}
	a, err := netip.ParseAddr(h)
	if err != nil || a.Zone() != "" || a.Is4In6() {
		return false
	}
	if a.Is4() {
		return a.As4()[0] == 127
	}
	return a == netip.IPv6Loopback()
}

// splitHostPort splits a Host header (or an origin's authority) into its
// host (without brackets) and port ("" when absent), and reports whether it
// is well formed: an optional port is a number from 1 to 65535, brackets hold
// an IPv6 address, and a bare IPv6 address carries no port.
func splitHostPort(hostport string) (host, port string, ok bool) {
	if hostport == "" {
		return "", "", false
	}
	if hostport[0] == '[' {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return "", "", false
		}
		h, rest := hostport[1:end], hostport[end+1:]
		if !strings.Contains(h, ":") {
			return "", "", false
		}
		if rest == "" {
			return h, "", true
		}
		if rest[0] != ':' || !isPort(rest[1:]) {
			return "", "", false
		}
		return h, rest[1:], true
	}
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 {
		return hostport, "", true
	}
	if strings.IndexByte(hostport, ':') != i {
		return hostport, "", true // bare IPv6
	}
	if !isPort(hostport[i+1:]) {
		return "", "", false
	}
	return hostport[:i], hostport[i+1:], true
}

func isPort(p string) bool {
	if len(p) == 0 || len(p) > 5 {
		return false
	}
	n := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
	}
	return n > 0 && n <= 65535
}

// hostMatches reports whether a Host header names exactly host (lower-case,
// no brackets) on port, where an absent port means defPort.
func hostMatches(header, host, port, defPort string) bool {
	h, p, ok := splitHostPort(header)
	if !ok || !strings.EqualFold(h, host) {
		return false
	}
	if p == "" {
		p = defPort
	}
	return p == port
}

// origin is a parsed web origin.
type origin struct {
	scheme string // lower-case
	host   string // lower-case, no brackets
	port   string // explicit port or the scheme's default
}

// parseOrigin parses an Origin header value: scheme "://" host [":" port],
// nothing else (no path, user info, query or fragment). "null" and anything
// malformed do not parse.
func parseOrigin(s string) (origin, bool) {
	i := strings.Index(s, "://")
	if i <= 0 {
		return origin{}, false
	}
	scheme := strings.ToLower(s[:i])
	rest := s[i+3:]
	var def string
	switch scheme {
	case "http":
		def = "80"
	case "https":
		def = "443"
	default:
		return origin{}, false
	}
	if rest == "" || strings.ContainsAny(rest, "/?#@\\ \t%") {
		return origin{}, false
	}
	h, port, ok := splitHostPort(rest)
	if !ok || h == "" || (rest[0] != '[' && strings.Contains(h, ":")) {
		return origin{}, false
	}
	if port == "" {
		port = def
	}
	return origin{scheme: scheme, host: strings.ToLower(h), port: port}, true
}

// originPolicy knows which origins a listener admits.
type originPolicy struct {
	port   string  // the listener's port
	hosted *origin // the hosted console, if configured
	own    *origin // a listener reached by its own address (share): its page's origin, instead of loopback's
}

// allowed reports whether an Origin header may reach a route. The page's own
// loopback origins are allowed (http://localhost, http://127.0.0.1 and
// http://[::1] on the listener's port); the hosted console's origin only on
// hosted rows. Everything else, "null" included, is refused.
func (p *originPolicy) allowed(value string, hosted bool) bool {
	o, ok := parseOrigin(value)
	if !ok {
		return false
	}
	if hosted && p.hosted != nil && o == *p.hosted {
		return true
	}
	if p.own != nil {
		return o == *p.own
	}
	if o.scheme != "http" || o.port != p.port {
		return false
	}
	return o.host == "localhost" || o.host == "127.0.0.1" || o.host == "::1"
}

// corsAllowed reports whether CORS headers are set for value: exactly the
// spec's list, http://localhost:<port>, http://127.0.0.1:<port> and the
// hosted console origin (on hosted rows).
func (p *originPolicy) corsAllowed(value string, hosted bool) bool {
	o, ok := parseOrigin(value)
	if !ok {
		return false
	}
	if hosted && p.hosted != nil && o == *p.hosted {
		return true
	}
	if p.own != nil {
		return false // the share page is same-origin: it needs no CORS
	}
	return o.scheme == "http" && o.port == p.port && (o.host == "localhost" || o.host == "127.0.0.1")
}
