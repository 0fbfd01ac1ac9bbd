// Package execx runs a declared argv (a target's or a spell's) the way core
// always does: no shell, a working directory inside the workspace, its own
// process group so that cancelling kills the whole tree, and output captured
// up to a cap.
package execx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Result is what a finished command left.
type Result struct {
	ExitCode  int
	Output    string // stdout and stderr, interleaved as written, capped
	Truncated bool
	Duration  time.Duration
}

// Run executes argv in dir until it exits or ctx ends (then its whole
// process group is killed). Output beyond capBytes is dropped and marked;
// live, when set, also receives every byte. A command that cannot start is
// an error; one that exits non-zero is not.
func Run(ctx context.Context, dir string, argv []string, capBytes int, live io.Writer) (Result, error) {
	if len(argv) == 0 {
		return Result{}, errors.New("empty argv")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &capped{max: capBytes}
	var w io.Writer = out
	if live != nil {
		w = io.MultiWriter(out, live)
	}
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	err := cmd.Wait()
	close(done)
	res := Result{Output: out.String(), Truncated: out.truncated, Duration: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
		if res.ExitCode < 0 {
			res.ExitCode = -1 // killed by a signal
		}
	default:
		return res, err
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, nil
}

// capped keeps the first max bytes written to it.
type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.max - c.buf.Len()
	if room < len(p) {
		c.truncated = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	c.buf.Write(p)
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}
