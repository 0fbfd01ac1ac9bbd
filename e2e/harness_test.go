// Package e2e drives the real core binary: it is built once in TestMain,
// every test copies the demo workspace, starts its own server on a free
// loopback port with an isolated environment, and talks to it with real
// clients (net/http, an SSE reader, the generated Connect client) and the
// CLI itself.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/corehq/core/internal/testbed"
)

// Generous deadlines: the machine is shared and noisy. Nothing asserts that
// something is fast, only that it happens before these.
const (
	readyTimeout = 30 * time.Second
	eventTimeout = 30 * time.Second
	pollTimeout  = 30 * time.Second
	cliTimeout   = 60 * time.Second
	stopTimeout  = 30 * time.Second
)

var (
	coreBin    string // the binary under test
	moduleRoot string // the checkout that holds go.mod
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	if spec := os.Getenv(netnsClientEnv); spec != "" {
		return netnsClient(spec) // this test binary, started in another network namespace
	}
	root, err := findModuleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	moduleRoot = root
	dir, err := os.MkdirTemp("", "core-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	coreBin = filepath.Join(dir, "core")
	build := exec.Command("go", "build", "-o", coreBin, "./cmd/core")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./cmd/core: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// findModuleRoot walks up from the test's directory to the go.mod of
// github.com/corehq/core.
func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && regexp.MustCompile(`(?m)^module\s+github\.com/corehq/core\s*$`).Match(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/corehq/core above the test directory")
		}
		dir = parent
	}
}

// copyDemo copies testdata/demo into a fresh temporary directory (without any
// .core cache a developer's run may have left there) and returns its path.
func copyDemo(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "ws")
	if err := testbed.CopyWorkspace(filepath.Join(moduleRoot, "testdata", "demo"), dst); err != nil {
		t.Fatalf("copy the demo workspace: %v", err)
	}
	return dst
}

// isolatedEnv is the environment of every core process: the test's own
// environment without any CORE_ variable, with HOME and XDG_CONFIG_HOME in a
// fresh temporary directory (so no user config leaks in), plus extra.
func isolatedEnv(t testing.TB, extra ...string) []string {
	t.Helper()
	return testbed.IsolatedEnv(t.TempDir(), extra...)
}

// cliResult is what one CLI invocation did.
type cliResult struct {
	Stdout, Stderr string
	Code           int
}

func (r cliResult) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.Code, r.Stdout, r.Stderr)
}

// lastLine is the last non-empty line of stdout.
func (r cliResult) lastLine() string {
	lines := strings.Split(strings.TrimRight(r.Stdout, "\n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// runCore runs `core --workspace ws args...` (no --workspace when ws is "")
// with an isolated environment plus env, and waits for it to exit.
func runCore(t testing.TB, ws string, env []string, args ...string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	if ws != "" {
		args = append([]string{"--workspace", ws}, args...)
	}
	cmd := exec.CommandContext(ctx, coreBin, args...)
	cmd.Env = isolatedEnv(t, env...)
	cmd.Dir = t.TempDir()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("core %s did not exit within %s\n%s", strings.Join(args, " "), cliTimeout, res)
	case errors.As(err, &exit):
		res.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("core %s: %v", strings.Join(args, " "), err)
	}
	return res
}

// mustCore is runCore that requires exit status 0.
func mustCore(t testing.TB, ws string, env []string, args ...string) cliResult {
	t.Helper()
	res := runCore(t, ws, env, args...)
	if res.Code != 0 {
		t.Fatalf("core %s failed:\n%s", strings.Join(args, " "), res)
	}
	return res
}

var createdRE = regexp.MustCompile(`created console token (tok_[0-9a-f]+) `)

// createToken mints a console token with the CLI and returns its id and
// secret (the secret is alone on the last line of stdout).
func createToken(t testing.TB, ws string, args ...string) (id, secret string) {
	t.Helper()
	res := mustCore(t, ws, nil, append([]string{"config", "console", "token", "create"}, args...)...)
	m := createdRE.FindStringSubmatch(res.Stdout)
	if m == nil {
		t.Fatalf("token create printed no token id:\n%s", res)
	}
	secret = res.lastLine()
	if strings.ContainsAny(secret, " \t") || secret == "" {
		t.Fatalf("the last line of token create is not a token alone: %q", secret)
	}
	return m[1], secret
}

// Server is one running `core server start`.
type Server struct {
	t          testing.TB
	WS         string // the workspace root
	BaseURL    string // as printed on the ready line
	URL        string // http://127.0.0.1:<port>, what tests connect to
	Port       string
	AdminToken string // from server.json
	PID        int
	Stdout     *testbed.Buffer
	Stderr     *testbed.Buffer

	cmd      *exec.Cmd
	exited   chan struct{}
	exitCode int         // valid once exited is closed
	killed   atomic.Bool // the test sent SIGKILL
}

var readyRE = regexp.MustCompile(`(?m)^core server: serving (.+) at (http://\S+)$`)

// startServer starts `core --workspace ws server start` with an isolated
// environment plus env, on 127.0.0.1:0 unless env sets CORE_MCP_ADDRESS. It
// waits for the ready line, reads server.json, and registers a cleanup that
// stops the server with SIGTERM and checks that it exited 0 without a panic.
func startServer(t testing.TB, ws string, env ...string) *Server {
	t.Helper()
	return startServerFlags(t, ws, nil, env...)
}

// startServerFlags is startServer with flags before the command (such as
// --log-format).
func startServerFlags(t testing.TB, ws string, flags []string, env ...string) *Server {
	t.Helper()
	s := launchServerFlags(t, ws, flags, env...)
	deadline := time.Now().Add(readyTimeout)
	for {
		if m := readyRE.FindStringSubmatch(s.Stdout.String()); m != nil {
			s.BaseURL = m[2]
			break
		}
		select {
		case <-s.exited:
			t.Fatalf("core server exited %d before it was ready\n%s", s.exitCode, s.logs())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("core server printed no ready line within %s\n%s", readyTimeout, s.logs())
		}
	}
	i := strings.LastIndex(s.BaseURL, ":")
	s.Port = s.BaseURL[i+1:]
	s.URL = "http://127.0.0.1:" + s.Port

	st := readState(t, ws)
	if st == nil {
		t.Fatalf("the server is ready but %s does not exist", statePath(ws))
	}
	s.AdminToken = st.AdminToken
	return s
}

// launchServer starts the server process without waiting for it to be ready.
// At cleanup it is stopped; a server that became ready must then exit 0
// (unless the test killed it) and no server may have logged a panic.
func launchServer(t testing.TB, ws string, env ...string) *Server {
	t.Helper()
	return launchServerFlags(t, ws, nil, env...)
}

// launchServerFlags is launchServer with flags before the command.
func launchServerFlags(t testing.TB, ws string, flags []string, env ...string) *Server {
	t.Helper()
	args := append(append([]string{"--workspace", ws}, flags...), "server", "start")
	hasAddress := false
	for _, kv := range env {
		if strings.HasPrefix(kv, "CORE_MCP_ADDRESS=") {
			hasAddress = true
		}
	}
	if !hasAddress {
		args = append(args, "--address", "127.0.0.1:0")
	}
	s := &Server{t: t, WS: ws, Stdout: &testbed.Buffer{}, Stderr: &testbed.Buffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(coreBin, args...)
	s.cmd.Env = isolatedEnv(t, env...)
	s.cmd.Dir = t.TempDir()
	s.cmd.Stdout, s.cmd.Stderr = s.Stdout, s.Stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatalf("start core server: %v", err)
	}
	s.PID = s.cmd.Process.Pid
	go func() {
		err := s.cmd.Wait()
		var exit *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &exit):
			s.exitCode = exit.ExitCode()
			if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				s.exitCode = 128 + int(ws.Signal())
			}
		default:
			s.exitCode = -1
		}
		close(s.exited)
	}()
	t.Cleanup(func() {
		code := s.Stop()
		if code != 0 && !s.killed.Load() && readyRE.MatchString(s.Stdout.String()) {
			t.Errorf("core server exited %d, want 0\n%s", code, s.logs())
		}
		s.assertNoPanic(t)
	})
	return s
}

// logs is the server's output, for failure messages.
func (s *Server) logs() string {
	return "--- stdout\n" + s.Stdout.String() + "--- stderr\n" + s.Stderr.String()
}

// Signal sends sig to the server process.
func (s *Server) Signal(sig os.Signal) {
	if sig == syscall.SIGKILL {
		s.killed.Store(true)
	}
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Signal(sig)
	}
}

// Wait waits for the server to exit on its own and returns its exit code.
func (s *Server) Wait(timeout time.Duration) (int, bool) {
	select {
	case <-s.exited:
		return s.exitCode, true
	case <-time.After(timeout):
		return 0, false
	}
}

// Exited reports whether the process has ended.
func (s *Server) Exited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// Stop sends SIGTERM (once the process still runs), waits for the exit and
// returns the exit code; a server that does not stop is killed and reported.
// It is safe to call more than once.
func (s *Server) Stop() int {
	// net/http's graceful shutdown waits up to 5s for a connection that
	// was dialed but never carried a request (the client's transport dials
	// spares under concurrency); hang those up first. Other tests just
	// dial again.
	httpClient.Transport.(*http.Transport).CloseIdleConnections()
	s.Signal(syscall.SIGTERM)
	if code, ok := s.Wait(stopTimeout); ok {
		return code
	}
	s.t.Errorf("core server did not exit within %s of SIGTERM; killing it\n%s", stopTimeout, s.logs())
	_ = s.cmd.Process.Kill()
	<-s.exited
	return s.exitCode
}

// assertNoPanic fails when the server's log shows a recovered panic or a
// goroutine dump.
func (s *Server) assertNoPanic(t testing.TB) {
	t.Helper()
	logs := s.Stderr.String() + s.Stdout.String()
	for _, bad := range []string{"handler panicked", "panic:", `"panic"`, "goroutine "} {
		if strings.Contains(logs, bad) {
			t.Errorf("the server's output holds %q:\n%s", bad, s.logs())
			return
		}
	}
}

// serverState is server.json.
type serverState struct {
	Address    string `json:"address"`
	BaseURL    string `json:"base_url"`
	PID        int    `json:"pid"`
	Workspace  string `json:"workspace"`
	AdminToken string `json:"admin_token"`
}

func statePath(ws string) string { return filepath.Join(ws, ".core", "server.json") }

// readState reads server.json, nil when it does not exist.
func readState(t testing.TB, ws string) *serverState {
	t.Helper()
	data, err := os.ReadFile(statePath(ws))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatalf("read server.json: %v", err)
	}
	var st serverState
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("server.json does not decode: %v\n%s", err, data)
	}
	return &st
}

// writeFileAtomic replaces path through a temporary file in the workspace's
// .core directory (which the watcher ignores) and a rename, so the watcher
// never sees a half-written file.
func writeFileAtomic(t testing.TB, ws, path string, data []byte) {
	t.Helper()
	tmp, err := os.CreateTemp(filepath.Join(ws, ".core"), "e2e-*.tmp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tmp.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		t.Fatal(err)
	}
}
