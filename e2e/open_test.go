package e2e

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corehq/core/internal/testbed"
)

// openServe is a running `core open --serve --print` and the link it
// printed.
type openServe struct {
	link, base string
	cmd        *exec.Cmd
	stderr     *testbed.Buffer
}

// startOpenServe starts `core open --serve --print` on ws and waits for its
// link; a cleanup interrupts it and checks that it exits 0.
func startOpenServe(t *testing.T, ws string, args ...string) *openServe {
	t.Helper()
	cmd := exec.Command(coreBin, append([]string{"--workspace", ws, "open", "--serve", "--print"}, args...)...)
	cmd.Env = isolatedEnv(t)
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	o := &openServe{cmd: cmd, stderr: &testbed.Buffer{}}
	cmd.Stderr = o.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("core open --serve did not exit 0 on SIGINT: %v\n%s", err, o.stderr)
			}
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			t.Errorf("core open --serve did not stop within %s of SIGINT", stopTimeout)
		}
	})
	select {
	case o.link = <-lines:
	case err := <-exited:
		t.Fatalf("core open --serve exited before printing a link: %v\n%s", err, o.stderr)
	case <-time.After(readyTimeout):
		t.Fatalf("core open --serve printed no link within %s\n%s", readyTimeout, o.stderr)
	}
	u, err := url.Parse(o.link)
	if err != nil || u.Scheme != "http" || u.Path != "/console/graph/" {
		t.Fatalf("core open --serve printed %q, not an http link to /console/graph/", o.link)
	}
	o.base = "http://" + u.Host
	return o
}

// TestOpenServe checks the loopback snapshot server of `core open --serve`:
// it serves the console and exactly the graph `core graph --json` prints,
// with the server's Host guard, and nothing else.
func TestOpenServe(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	want := mustCore(t, ws, nil, "graph", "--json").Stdout
	o := startOpenServe(t, ws)

	t.Run("the link names the graph in its fragment", func(t *testing.T) {
		frag := o.link[strings.Index(o.link, "#")+1:]
		v, err := url.ParseQuery(frag)
		if err != nil || v.Get("src") != o.base+"/graph.json" {
			t.Fatalf("fragment %q does not carry src=%s/graph.json", frag, o.base)
		}
	})
	t.Run("the graph is the bytes of core graph --json, not cached", func(t *testing.T) {
		r := get(t, o.base+"/graph.json", "")
		if r.Status != http.StatusOK || !bytes.Equal(r.Body, []byte(want)) {
			t.Fatalf("GET /graph.json: status %d, %d bytes; want 200 and the %d bytes of core graph --json", r.Status, len(r.Body), len(want))
		}
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control = %q, want no-store", cc)
		}
	})
	t.Run("the console page is served with its policy", func(t *testing.T) {
		r := get(t, o.base+"/console/graph/", "")
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("GET /console/graph/: %s", r)
		}
		if csp := r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("Content-Security-Policy = %q", csp)
		}
	})
	t.Run("a foreign Host is refused before anything else", func(t *testing.T) {
		req := newRequest(t, http.MethodGet, o.base+"/graph.json", "", nil)
		req.Host = "evil.example"
		wantAPIError(t, do(t, req), http.StatusForbidden, "forbidden_host")
	})
	t.Run("a POST is 405 and an unknown path 404", func(t *testing.T) {
		wantAPIError(t, do(t, newRequest(t, http.MethodPost, o.base+"/graph.json", "", nil)), http.StatusMethodNotAllowed, "method_not_allowed")
		wantAPIError(t, get(t, o.base+"/api/v1/graph", ""), http.StatusNotFound, "not_found")
	})
}

// TestBrowserSnapshotFromServe opens the --serve link in the browser: the
// explorer shows the snapshot, fetched from the loopback server.
func TestBrowserSnapshotFromServe(t *testing.T) {
	ws := copyDemo(t)
	b := newBrowser(t)
	o := startOpenServe(t, ws, "--targets")
	b.open(t, o.link)
	b.waitFor(t, `window.__core && window.__core.ready && window.__core.state === 'snapshot'`)
	if n := eval[int](t, b, `window.__core.nodes`); n == 0 {
		t.Fatal("the snapshot shows no nodes")
	}
	var fetched bool
	for _, r := range b.requests() {
		if strings.HasSuffix(r.URL, "/graph.json") {
			fetched = true
		}
	}
	if !fetched {
		t.Error("the page did not fetch /graph.json")
	}
}
