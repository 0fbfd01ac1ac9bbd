package forge

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/corehq/core/internal/quote"
)

// Remote is a git remote address that names a repository on a forge.
type Remote struct {
	Host  string // lower case, without a port: "github.com"
	Owner string // "corehq"
	Repo  string // "core" (no ".git")
}

// ParseRemote reads host, owner and repository from a git remote address:
// https://HOST/OWNER/REPO(.git) (http, git and ssh:// schemes too, with or
// without user info and a port) and the scp-like [USER@]HOST:OWNER/REPO(.git).
// Local paths and file:// are refused. The error never repeats user info
// (it may hold a token).
func ParseRemote(raw string) (Remote, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return Remote{}, fmt.Errorf("the remote address is empty")
	}
	var host, path string
	if i := strings.Index(s, "://"); i >= 0 {
		u, err := url.Parse(s)
		if err != nil {
			return Remote{}, fmt.Errorf("%s is not a URL", Redact(s))
		}
		switch strings.ToLower(u.Scheme) {
		case "https", "http", "ssh", "git", "git+ssh", "ssh+git":
		case "file":
			return Remote{}, fmt.Errorf("%s is a local repository, not a forge", Redact(s))
		default:
			return Remote{}, fmt.Errorf("%s has scheme %s, which core does not read", Redact(s), quote.Short(u.Scheme))
		}
		host, path = u.Hostname(), u.Path
	} else {
		// scp-like: [user@]host:path, where the part before ':' has no '/'.
		colon := strings.Index(s, ":")
		if colon <= 0 || strings.Contains(s[:colon], "/") {
			return Remote{}, fmt.Errorf("%s is a local path, not a forge address", Redact(s))
		}
		host, path = s[:colon], s[colon+1:]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
			host = host[1 : len(host)-1]
		}
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if !validHost(host) {
		return Remote{}, fmt.Errorf("%s has no host name", Redact(s))
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	parts := strings.Split(path, "/")
	if len(parts) != 2 {
		return Remote{}, fmt.Errorf("%s does not end in OWNER/REPO", Redact(s))
	}
	owner, repo := parts[0], parts[1]
	if !validOwner(owner) {
		return Remote{}, fmt.Errorf("%s: %s is not an owner name (letters, digits and single hyphens)", Redact(s), quote.Short(owner))
	}
	if !validRepo(repo) {
		return Remote{}, fmt.Errorf("%s: %s is not a repository name (letters, digits, '.', '-', '_')", Redact(s), quote.Short(repo))
	}
	return Remote{Host: host, Owner: owner, Repo: repo}, nil
}

// Redact quotes a remote address for a message, with any user info (which
// may be a token: https://x-access-token:TOKEN@github.com/...) replaced by
// "***".
func Redact(raw string) string {
	s := raw
	// The authority follows "://", or a leading "//" (a scheme-relative
	// URL, which URL parsers read user info from too).
	authority := -1
	if i := strings.Index(s, "://"); i >= 0 {
		authority = i + 3
	} else if strings.HasPrefix(s, "//") {
		authority = 2
	}
	if authority >= 0 {
		rest := s[authority:]
		end := strings.IndexAny(rest, "/?#")
		if end < 0 {
			end = len(rest)
		}
		if at := strings.LastIndex(rest[:end], "@"); at >= 0 {
			s = s[:authority] + "***@" + rest[at+1:]
		}
	} else if colon := strings.Index(s, ":"); colon > 0 {
		if at := strings.LastIndex(s[:colon], "@"); at >= 0 {
			s = "***@" + s[at+1:]
		}
	}
	return quote.Short(s)
}

func validHost(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, r := range h {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.', r == ':':
		default:
			return false
		}
	}
	if strings.Contains(h, ":") {
		return true // an IPv6 literal
	}
	// Every label of a name holds something: "." or "a..b" names no host
	// (and an https address of it parses to none).
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return false
		}
	}
	return true
}

// validOwner: GitHub's user and organisation names, 1-39 letters, digits
// and hyphens, not starting or ending with one.
func validOwner(s string) bool {
	if s == "" || len(s) > 39 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// validRepo: GitHub's repository names, up to 100 of [A-Za-z0-9._-], not
// "." or "..".
func validRepo(s string) bool {
	if s == "" || len(s) > 100 || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}
