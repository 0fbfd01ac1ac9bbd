package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/corehq/core/internal/testbed"
)

const (
	readyTimeout = 30 * time.Second // for the server's ready line
	cliTimeout   = 60 * time.Second // for one CLI command
	stopTimeout  = 30 * time.Second // for the server to exit once stopped
)

// buildCore builds ./cmd/core of the checkout at root into dir.
func buildCore(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "bin", "core")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/core")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/core: %v\n%s", err, out)
	}
	return bin, nil
}

// core runs the built binary on one workspace.
type core struct {
	bin, ws string
	dir     string // the working directory of every command
	env     []string
}

func (c *core) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.bin, append([]string{"--workspace", c.ws}, args...)...)
	cmd.Env = c.env
	cmd.Dir = c.dir
	return cmd
}

// cli runs one command to its end and returns its stdout.
func (c *core) cli(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cliTimeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := c.command(ctx, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("core %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// server is one running `core server start`.
type server struct {
	cmd     *exec.Cmd
	output  *testbed.Buffer // stdout and stderr
	exited  chan struct{}
	err     error // how it exited, once exited is closed
	baseURL string
}

var readyRE = regexp.MustCompile(`(?m)^core server: serving .+ at (http://\S+)$`)

// startServer starts the server on a free loopback port and waits for its
// ready line.
func (c *core) startServer(ctx context.Context) (*server, error) {
	s := &server{output: &testbed.Buffer{}, exited: make(chan struct{})}
	// Not bound to ctx: stopServer ends it gracefully.
	s.cmd = c.command(context.Background(), "server", "start", "--address", "127.0.0.1:0")
	s.cmd.Stdout, s.cmd.Stderr = s.output, s.output
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start core server: %w", err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := readyRE.FindStringSubmatch(s.output.String()); m != nil {
			s.baseURL = m[1]
			return s, nil
		}
		var err error
		select {
		case <-tick.C:
			continue
		case <-s.exited:
			return nil, fmt.Errorf("core server exited before it was ready (%v)\n%s", s.err, s.output)
		case <-deadline.C:
			err = fmt.Errorf("core server printed no ready line within %s\n%s", readyTimeout, s.output)
		case <-ctx.Done():
			err = ctx.Err()
		}
		_ = s.cmd.Process.Kill()
		<-s.exited
		return nil, err
	}
}

// pairingLink asks `core open --print` for the link a user would open: with
// a server running it is {base_url}/console/graph/#token=<one-time code>.
func (c *core) pairingLink(ctx context.Context) (string, error) {
	out, err := c.cli(ctx, "open", "--print")
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	link := strings.TrimSpace(lines[len(lines)-1])
	if !strings.Contains(link, "#token=") {
		return "", fmt.Errorf("core open --print printed %q, not a pairing link", out)
	}
	return link, nil
}

// stopServer stops the server with `core server stop` (SIGTERM, then a wait
// for the exit) and reports a server that did not exit cleanly.
func (c *core) stopServer(s *server) error {
	var stopErr error
	select {
	case <-s.exited:
	default:
		_, stopErr = c.cli(context.Background(), "server", "stop")
	}
	select {
	case <-s.exited:
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.exited
		return fmt.Errorf("core server did not exit within %s of `core server stop` (%v); killed it\n%s", stopTimeout, stopErr, s.output)
	}
	if s.err != nil {
		return fmt.Errorf("core server exited with %v\n%s", s.err, s.output)
	}
	logs := s.output.String()
	for _, bad := range []string{"handler panicked", "panic:", `"panic"`, "goroutine "} {
		if strings.Contains(logs, bad) {
			return fmt.Errorf("core server's output holds %q:\n%s", bad, logs)
		}
	}
	return nil
}
