package forge

import (
	"net/url"
	"strings"
	"testing"
)

func TestParseRemote(t *testing.T) {
	cases := []struct {
		name, raw string
		want      Remote
	}{
		{"https with .git", "https://github.com/corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"https without .git", "https://github.com/corehq/core", Remote{"github.com", "corehq", "core"}},
		{"https with a trailing slash", "https://github.com/corehq/core/", Remote{"github.com", "corehq", "core"}},
		{"https with a user", "https://someone@github.com/corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"https with a token as user info", "https://x-access-token:ghs_abc@github.com/corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"https with a port and an upper-case host", "https://GitHub.com:443/corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"scp-like ssh", "git@github.com:corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"scp-like ssh with a leading slash", "git@github.com:/corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"scp-like without a user", "github.com:corehq/core", Remote{"github.com", "corehq", "core"}},
		{"ssh URL", "ssh://git@github.com/corehq/core.git", Remote{"github.com", "corehq", "core"}},
		{"ssh URL over port 443", "ssh://git@ssh.github.com:443/corehq/core.git", Remote{"ssh.github.com", "corehq", "core"}},
		{"an Enterprise host", "https://ghe.example.com/team/app.git", Remote{"ghe.example.com", "team", "app"}},
		{"a repository with dots and underscores", "git@github.com:a-b/x.y_z.git", Remote{"github.com", "a-b", "x.y_z"}},
	}
	for _, tc := range cases {
		t.Run(tc.name+" gives host, owner and repository", func(t *testing.T) {
			got, err := ParseRemote(tc.raw)
			if err != nil || got != tc.want {
				t.Errorf("ParseRemote(%q) = %+v, %v; want %+v", tc.raw, got, err, tc.want)
			}
		})
	}
	bad := []struct{ name, raw, says string }{
		{"an empty address", "", "empty"},
		{"a local path", "/srv/git/core.git", "local path"},
		{"a relative path", "../core", "local path"},
		{"file://", "file:///srv/git/core.git", "local repository"},
		{"an unknown scheme", "ftp://github.com/corehq/core", "scheme"},
		{"one path segment", "https://github.com/corehq", "OWNER/REPO"},
		{"three path segments", "https://github.com/corehq/core/extra", "OWNER/REPO"},
		{"an owner with a dot", "https://github.com/core.hq/core", "owner"},
		{"a repository named ..", "https://github.com/corehq/..", "repository name"},
		{"no host", "https:///corehq/core", "host"},
		{"a host of dots", "..:corehq/core", "host"},
		{"a host with an empty label", "https://git..example.com/o/r", "host"},
	}
	for _, tc := range bad {
		t.Run(tc.name+" is refused, saying why", func(t *testing.T) {
			_, err := ParseRemote(tc.raw)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("ParseRemote(%q) error = %v, want one saying %q", tc.raw, err, tc.says)
			}
		})
	}
}

func TestRedactHidesUserInfo(t *testing.T) {
	cases := map[string]string{
		"https://x-access-token:ghs_secret@github.com/o/r.git": `"https://***@github.com/o/r.git"`,
		"https://ghs_secret@github.com/o":                      `"https://***@github.com/o"`,
		"ghs_secret@github.com:o/r":                            `"***@github.com:o/r"`,
		"https://github.com/o/r":                               `"https://github.com/o/r"`,
		"//user:ghs_secret@github.com/o/r":                     `"//***@github.com/o/r"`,
	}
	for in, want := range cases {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %s, want %s", in, got, want)
		}
	}
}

// FuzzParseRemote: the parser never panics; what it accepts is a valid
// owner and repository on a lower-case host, and reads the same again as
// an https address; an error never shows the address's password.
func FuzzParseRemote(f *testing.F) {
	for _, s := range []string{
		"https://github.com/corehq/core.git", "git@github.com:corehq/core.git", "ssh://git@github.com:22/o/r",
		"https://u:p@ghe.example.com/o/r/", "github.com:o/r", "/local/path", "file:///x", "https://github.com/o",
		"git@[::1]:o/r.git", "https://user:secret@host/o/r/x", "\x00", "::", "a@b:c/d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r, err := ParseRemote(raw)
		if err != nil {
			if u, perr := url.Parse(raw); perr == nil && u.User != nil {
				// The password may also be a part of the host or path
				// ("//:cret@0cret"): only more of it than the address has
				// without its user info is a leak.
				rest := strings.Replace(raw, u.User.String()+"@", "", 1)
				if pw, ok := u.User.Password(); ok && len(pw) >= 4 && strings.Count(err.Error(), pw) > strings.Count(rest, pw) {
					t.Fatalf("the error %q shows the password of %q", err, raw)
				}
			}
			return
		}
		if r.Host == "" || r.Host != strings.ToLower(r.Host) || !validOwner(r.Owner) || !validRepo(r.Repo) {
			t.Fatalf("ParseRemote(%q) = %+v", raw, r)
		}
		if strings.Contains(r.Host, ":") {
			return // an IPv6 literal; no URL round trip without brackets
		}
		again, err := ParseRemote("https://" + r.Host + "/" + r.Owner + "/" + r.Repo + ".git")
		if err != nil || again != r {
			t.Fatalf("ParseRemote(%q) = %+v, but its https form reads %+v, %v", raw, r, again, err)
		}
	})
}
