package testbed

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Nginx is a real nginx serving a remote build cache, started by
// scripts/cache-server exactly as the README tells a team to. Tests that
// need one skip when nginx is missing, unless CORE_NGINX_TESTS=required
// (the test command installs Debian's nginx-light and sets it).
type Nginx struct {
	URL   string // base URL, e.g. http://127.0.0.1:41234/cache
	Data  string // the directory it serves: Data/ac, Data/cas
	PID   string // nginx's pid file
	dir   string
	addr  string
	token string
	cmd   *exec.Cmd
	t     testing.TB
}

// StartNginx starts the cache server on a free loopback port; it is
// stopped when the test ends. A token, when not empty, is required of
// every request as "Authorization: Bearer TOKEN".
func StartNginx(t testing.TB, token string) *Nginx {
	t.Helper()
	if _, err := exec.LookPath("nginx"); err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			if os.Getenv("CORE_NGINX_TESTS") == "required" {
				t.Fatal("nginx is not installed and CORE_NGINX_TESTS=required: install Debian's nginx-light (scripts/test does)")
			}
			t.Skip("nginx is not installed (Debian: apt-get install nginx-light); CORE_NGINX_TESTS=required makes this a failure")
		}
	}
	dir := t.TempDir()
	_ = os.Chmod(dir, 0o755)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	n := &Nginx{URL: "http://" + addr + "/cache", Data: filepath.Join(dir, "data"), PID: filepath.Join(dir, "nginx.pid"), dir: dir, addr: addr, token: token, t: t}
	n.Start()
	t.Cleanup(n.Stop)
	return n
}

// script is scripts/cache-server of this module.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "scripts", "cache-server")
}

// Start starts nginx (again, after Stop) and waits until it answers.
func (n *Nginx) Start() {
	n.t.Helper()
	n.cmd = exec.Command(script(), n.dir, n.addr)
	n.cmd.Env = append(os.Environ(), "CACHE_TOKEN="+n.token)
	logf, err := os.Create(filepath.Join(n.t.TempDir(), "cache-server.log"))
	if err != nil {
		n.t.Fatal(err)
	}
	n.cmd.Stdout, n.cmd.Stderr = logf, logf
	if err := n.cmd.Start(); err != nil {
		n.t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(n.URL + "/")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			out, _ := os.ReadFile(logf.Name())
			errs, _ := os.ReadFile(filepath.Join(n.dir, "logs", "error.log"))
			n.t.Fatalf("nginx did not start: %v\n%s%s", err, out, errs)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops nginx at once (SIGINT: in-flight requests are cut).
func (n *Nginx) Stop() {
	if n.cmd == nil || n.cmd.Process == nil {
		return
	}
	_ = n.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = n.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = n.cmd.Process.Kill()
		<-done
	}
	n.cmd = nil
}

// Files lists the paths under Data (relative, slash-separated): what the
// server holds.
func (n *Nginx) Files() []string {
	var out []string
	_ = filepath.Walk(n.Data, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(n.Data, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func (n *Nginx) String() string { return fmt.Sprintf("nginx at %s", n.URL) }
