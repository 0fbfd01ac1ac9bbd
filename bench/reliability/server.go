package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/state"
	"github.com/corehq/core/internal/testbed"

	tokenv1alpha1 "github.com/corehq/core/proto/gen/core/token/v1alpha1"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
)

// Generous deadlines: the machine is shared; nothing here asserts speed.
const (
	readyTimeout = 60 * time.Second
	stopTimeout  = 30 * time.Second
)

// server is one `core server start` child process.
type server struct {
	e      *env
	ws     string
	home   string
	URL    string // base URL from server.json
	Addr   string // host:port
	Admin  string // the admin credential from server.json
	PID    int
	logf   string // its stdout and stderr
	cmd    *exec.Cmd
	exited chan struct{}
	code   int // valid once exited is closed; 128+signal when signalled
}

// startServer starts `core --workspace ws server start --address
// 127.0.0.1:0` with an isolated environment (HOME is home) plus extra, and
// waits until server.json names it. It is stopped at the env's close if
// still running.
func (e *env) startServer(ws, home string, extra ...string) (*server, error) {
	logf := filepath.Join(e.tmp, fmt.Sprintf("%s-server-%d.log", filepath.Base(ws), time.Now().UnixNano()))
	out, err := os.Create(logf)
	if err != nil {
		return nil, err
	}
	s := &server{e: e, ws: ws, home: home, logf: logf, exited: make(chan struct{})}
	s.cmd = exec.Command(e.core, "--workspace", ws, "server", "start", "--address", "127.0.0.1:0")
	s.cmd.Env = testbed.IsolatedEnv(home, extra...)
	s.cmd.Dir = home
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("start core server: %w", err)
	}
	s.PID = s.cmd.Process.Pid
	go func() {
		err := s.cmd.Wait()
		out.Close()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit):
			s.code = exit.ExitCode()
			if st, ok := exit.Sys().(syscall.WaitStatus); ok && st.Signaled() {
				s.code = 128 + int(st.Signal())
			}
		default:
			s.code = -1
		}
		close(s.exited)
	}()
	e.atClose(func() { s.Stop() })

	deadline := time.Now().Add(readyTimeout)
	for {
		st, err := state.Read(filepath.Join(ws, ".core"))
		if err == nil && st.PID == s.PID && st.BaseURL != "" {
			s.URL, s.Addr, s.Admin = st.BaseURL, st.Address, st.AdminToken
			if u, err := url.Parse(st.BaseURL); err == nil && s.Addr == "" {
				s.Addr = u.Host
			}
			if c, err := net.DialTimeout("tcp", s.Addr, 5*time.Second); err == nil {
				c.Close()
				return s, nil
			}
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("core server exited %d before it was ready:\n%s", s.code, s.LogTail(20))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Kill()
			return nil, fmt.Errorf("core server was not ready within %s:\n%s", readyTimeout, s.LogTail(20))
		}
	}
}

// Exited reports whether the process has ended.
func (s *server) Exited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM and waits for the exit (SIGKILL after stopTimeout);
// it returns the exit code and whether it stopped on SIGTERM. Safe to call
// more than once.
func (s *server) Stop() (code int, graceful bool) {
	if s.Exited() {
		return s.code, true
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
		return s.code, true
	case <-time.After(stopTimeout):
		s.Kill()
		return s.code, false
	}
}

// Kill sends SIGKILL and waits for the process to be reaped.
func (s *server) Kill() {
	if s.Exited() {
		return
	}
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// RSS is the server's resident set size in bytes.
func (s *server) RSS() int64 { return rssOf(s.PID) }

// Log is the server's output so far.
func (s *server) Log() string {
	b, _ := os.ReadFile(s.logf)
	return string(b)
}

// LogTail is the last n lines of the server's output.
func (s *server) LogTail(n int) string {
	lines := strings.Split(strings.TrimRight(s.Log(), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Panicked reports whether the server's output shows a panic.
func (s *server) Panicked() bool {
	l := s.Log()
	for _, bad := range []string{"handler panicked", "panic:", `"panic"`, "goroutine "} {
		if strings.Contains(l, bad) {
			return true
		}
	}
	return false
}

// Mint creates a console token with grants through TokenService.CreateToken
// and the admin credential, and returns its secret.
func (s *server) Mint(grants ...string) (string, error) {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: auth.Transport{Token: s.Admin}}
	c := tokenv1alpha1connect.NewTokenServiceClient(hc, s.URL)
	res, err := c.CreateToken(context.Background(), &tokenv1alpha1.CreateTokenRequest{Kind: "console", Grants: grants})
	if err != nil {
		return "", fmt.Errorf("TokenService.CreateToken: %w", err)
	}
	if res.GetSecret() == "" {
		return "", errors.New("TokenService.CreateToken returned no secret")
	}
	return res.GetSecret(), nil
}

// stopCheck stops the server with SIGTERM and returns a failure reason
// (empty when it exited 0 without a panic in its log).
func (s *server) stopCheck() string {
	code, graceful := s.Stop()
	switch {
	case !graceful:
		return fmt.Sprintf("the server did not exit within %s of SIGTERM", stopTimeout)
	case code != 0:
		return fmt.Sprintf("the server exited %d on SIGTERM", code)
	case s.Panicked():
		return "the server's log shows a panic"
	}
	return ""
}

// writeFileAtomic replaces path through a temporary file in the
// workspace's .core directory (which the watcher ignores) and a rename, so
// the watcher never sees a half-written file.
func writeFileAtomic(ws, path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Join(ws, ".core"), "reliability-*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// retitle returns doc with its first line replaced by "# title".
func retitle(doc []byte, title string) []byte {
	_, rest, _ := bytes.Cut(doc, []byte("\n"))
	return append([]byte("# "+title+"\n"), rest...)
}
