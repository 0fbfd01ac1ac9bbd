package forge

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corehq/core/internal/testbed"
)

// The open pull request of pulls-open.json.
const (
	openOwner  = "rsn491"
	openRepo   = "PyGithub"
	openBranch = "ricardo-add-pr-create-comment-reply"
	openHead   = "a7c8a2142a33b026f51eecd3f5cba3694bd52f8b"
	testToken  = "ghp_TESTtokenTESTtokenTESTtoken0123456789"
)

// fixture is one recorded response (testdata/README.md).
type fixture struct {
	Source string            `json:"source"`
	Status int               `json:"status"`
	Header map[string]string `json:"header"`
	Body   json.RawMessage   `json:"body"`
}

// load reads testdata/NAME.json; replace holds old, new pairs for the
// body (the README says which tests change what).
func load(t *testing.T, name string, replace ...string) fixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	body := string(f.Body)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(body, replace[i]) {
			t.Fatalf("%s has no %q to replace", name, replace[i])
		}
		body = strings.ReplaceAll(body, replace[i], replace[i+1])
	}
	f.Body = json.RawMessage(body)
	return f
}

// seen is one request the fake forge received.
type seen struct {
	Path, Query, IfNoneMatch, Authorization string
	Status                                  int
}

// forgeServer serves recorded responses by path (any query), the recorded
// 404 for other paths, and the recorded 304 when If-None-Match matches.
type forgeServer struct {
	*httptest.Server
	prefix   string // "/api/v3" for an Enterprise layout
	notFound fixture
	notMod   fixture

	mu     sync.Mutex
	routes map[string]fixture
	always *fixture // answers every path (errors)
	log    []seen
}

func newForge(t *testing.T, routes map[string]fixture) *forgeServer {
	t.Helper()
	s := &forgeServer{routes: routes, notFound: load(t, "not-found"), notMod: load(t, "not-modified")}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func header(m map[string]string) http.Header {
	h := http.Header{}
	for k, v := range m {
		h.Set(k, v)
	}
	return h
}

func (s *forgeServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := strings.TrimPrefix(r.URL.Path, s.prefix)
	f, ok := s.routes[path]
	if s.always != nil {
		f, ok = *s.always, true
	}
	if !ok {
		f = s.notFound
	}
	rec := seen{Path: path, Query: r.URL.RawQuery, IfNoneMatch: r.Header.Get("If-None-Match"), Authorization: r.Header.Get("Authorization")}
	h := header(f.Header)
	if etag := h.Get("ETag"); etag != "" && rec.IfNoneMatch == etag {
		for k, v := range header(s.notMod.Header) {
			w.Header()[k] = v
		}
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		rec.Status = http.StatusNotModified
		s.log = append(s.log, rec)
		return
	}
	for k, v := range h {
		w.Header()[k] = v
	}
	w.WriteHeader(f.Status)
	rec.Status = f.Status
	s.log = append(s.log, rec)
	if string(f.Body) != "null" {
		_, _ = w.Write(f.Body)
	}
}

func (s *forgeServer) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.log...)
}

func (s *forgeServer) answerAll(f fixture) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always = &f
}

// openRoutes serves the open pull request with its reviews, comments and
// checks.
func openRoutes(t *testing.T) map[string]fixture {
	base := "/repos/" + openOwner + "/" + openRepo
	return map[string]fixture{
		base + "/pulls":                               load(t, "pulls-open"),
		base + "/pulls/1/reviews":                     load(t, "reviews"),
		base + "/pulls/1/comments":                    load(t, "review-comments"),
		base + "/issues/1/comments":                   load(t, "issue-comments"),
		base + "/commits/" + openHead + "/check-runs": load(t, "check-runs"),
	}
}

// isolateGit keeps the fixture repositories away from the machine's and
// the user's git configuration.
func isolateGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
}

// g runs git in dir with a test identity and returns its trimmed stdout.
func g(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return (&testbed.GitRepo{T: t, Dir: dir}).Git(args...)
}

// repo makes a repository on branch with one commit and origin set to
// remote ("" for none).
func repo(t *testing.T, branch, remote string) string {
	t.Helper()
	dir := t.TempDir()
	g(t, dir, "init", "-q", "-b", branch)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g(t, dir, "add", "a.txt")
	g(t, dir, "commit", "-q", "-m", "a")
	if remote != "" {
		g(t, dir, "remote", "add", "origin", remote)
	}
	return dir
}

// clock is a settable clock for the answer cache.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// env is a Getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}
