package e2e

// What the CLI's --open flags hand a browser: the link is captured by a
// fake xdg-open first on PATH, so the tests see the exact URL and which
// host it goes to.

import (
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeOpener puts an xdg-open (and open, as macOS names it) first on PATH
// that appends its argument to a file. It returns the PATH entry for the
// CLI's environment and a function that waits for n links to have been
// opened (the CLI starts the opener without waiting for it) and returns
// every link opened so far; n 0 waits a moment and returns what is there.
func fakeOpener(t *testing.T) (pathEnv string, opened func(n int) []string) {
	t.Helper()
	dir := t.TempDir()
	log := filepath.Join(dir, "opened.txt")
	script := "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '" + log + "'\n"
	for _, name := range []string{"xdg-open", "open"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	read := func() []string {
		data, _ := os.ReadFile(log)
		var links []string
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				links = append(links, l)
			}
		}
		return links
	}
	opened = func(n int) []string {
		t.Helper()
		if n == 0 {
			time.Sleep(500 * time.Millisecond)
			return read()
		}
		for deadline := time.Now().Add(pollTimeout); ; time.Sleep(20 * time.Millisecond) {
			if links := read(); len(links) >= n || time.Now().After(deadline) {
				if len(links) < n {
					t.Fatalf("%d links opened within %s, want %d: %q", len(links), pollTimeout, n, links)
				}
				return links
			}
		}
	}
	return "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), opened
}

// TestShareOpenOpensTheShareItself: `core share --open` hands the browser
// the share link itself, on the share listener, and never another host,
// even with log_viewer_url set; the share listener's Host refusal names
// the address it answers.
func TestShareOpenOpensTheShareItself(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws, "CORE_SHARE_ADDRESS=127.0.0.2")
	pathEnv, opened := fakeOpener(t)
	res := mustCore(t, ws, []string{pathEnv, "CORE_LOG_VIEWER_URL=https://logs.example.com/view?org=acme"}, "share", "--ttl", "5m", "--open")
	t.Cleanup(func() { runCore(t, ws, nil, "share", "stop") })
	printed := regexp.MustCompile(`http://127\.0\.0\.2:\d+/console/graph/#token=core_share_\S+`).FindString(res.Stdout)
	if printed == "" {
		t.Fatalf("core share printed no share link:\n%s", res)
	}
	secret := printed[strings.Index(printed, "core_share_"):]

	links := opened(1)
	if len(links) != 1 || links[0] != printed {
		t.Errorf("core share --open opened %q, want the share link %q alone", links, printed)
	}
	for _, l := range links {
		u, err := url.Parse(l)
		if err != nil {
			t.Fatalf("opened %q: %v", l, err)
		}
		if want, _ := url.Parse(printed); u.Host != want.Host {
			t.Errorf("core share --open sent the browser to %s, not the share listener %s: %q", u.Host, want.Host, l)
		}
	}
	if strings.Contains(res.Stdout+res.Stderr, "logs.example.com") {
		t.Errorf("core share --open mentions the log viewer:\n%s", res)
	}
	if n := strings.Count(res.Stdout+res.Stderr, secret); n != 1 {
		t.Errorf("the share token is printed %d times, want once (the link):\n%s", n, res)
	}

	t.Run("the share listener's Host refusal names its own address", func(t *testing.T) {
		u, _ := url.Parse(printed)
		for _, host := range []string{"127.0.0.1:" + u.Port(), "localhost:" + u.Port(), "evil.example"} {
			req := newRequest(t, http.MethodGet, "http://"+u.Host+"/console/graph/", "", nil)
			req.Host = host
			msg := wantAPIError(t, do(t, req), http.StatusForbidden, "forbidden_host")
			if !strings.Contains(msg, u.Host) || strings.Contains(msg, "loopback") {
				t.Errorf("Host %s on the share: the refusal says %q, want it to name %s and no loopback host", host, msg, u.Host)
			}
		}
		// The loopback listener still names the loopback hosts.
		req := newRequest(t, http.MethodGet, s.URL+"/console/graph/", "", nil)
		req.Host = "evil.example"
		if msg := wantAPIError(t, do(t, req), http.StatusForbidden, "forbidden_host"); !strings.Contains(msg, "loopback hosts only") {
			t.Errorf("Host evil.example on the server: %q", msg)
		}
	})
}
