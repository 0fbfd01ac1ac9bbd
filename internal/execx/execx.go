// Package execx runs a declared argv (a target's or a spell's) the way core
// always does: no shell, a working directory inside the workspace, its own
// process group so that cancelling ends the whole tree (SIGTERM, then
// SIGKILL), and output captured up to a cap.
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

// KillGrace is how long a cancelled command's process group has between
// SIGTERM and SIGKILL.
const KillGrace = 3 * time.Second

// Capture keeps a command's combined output up to Max bytes (DefaultMax
// when 0): the first half and the last half, with a marker where bytes were
// left out. Live, when set, also receives every write; if it has a Flush
// method, Result calls it.
type Capture struct {
	Max  int
	Live io.Writer

	mu    sync.Mutex
	head  []byte
	tail  []byte // ring buffer once full
	tpos  int
	total int64
}

// DefaultMax is the output a Capture keeps by default.
const DefaultMax = 1 << 20

func (c *Capture) half() int {
	if c.Max <= 0 {
		return DefaultMax / 2
	}
	return c.Max / 2
}

func (c *Capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if c.Live != nil {
		_, _ = c.Live.Write(p)
	}
	halfCap := c.half()
	if room := halfCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(c.tail) < halfCap {
			k := min(halfCap-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= halfCap {
			copy(c.tail, p[len(p)-halfCap:])
			c.tpos = 0
			break
		}
		k := copy(c.tail[c.tpos:], p)
		p = p[k:]
		c.tpos = (c.tpos + k) % halfCap
	}
	return n, nil
}

// Result returns the kept output and whether bytes were left out.
func (c *Capture) Result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.Live.(interface{ Flush() }); ok {
		f.Flush()
	}
	kept := int64(len(c.head) + len(c.tail))
	var b bytes.Buffer
	b.Grow(int(kept) + 64)
	b.Write(c.head)
	truncated := c.total > kept
	if truncated {
		fmt.Fprintf(&b, "\n[core: %d bytes of output left out]\n", c.total-kept)
	}
	b.Write(c.tail[c.tpos:])
	b.Write(c.tail[:c.tpos])
	return b.String(), truncated
}

// Result is how a process ended.
type Result struct {
	ExitCode    int
	Err         string // why it did not run or end normally
	Interrupted bool
}

// Exec runs argv (never through a shell) in dir, its own process group, stdout and stderr into
// out (one pipe, so they interleave as written). Cancelling ctx sends
// SIGTERM to the group, then SIGKILL after KillGrace.
func Exec(ctx context.Context, argv []string, dir string, out io.Writer) Result {
	if len(argv) == 0 {
		return Result{ExitCode: -1, Err: "empty argv"}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	done := make(chan struct{})
	cmd.Cancel = func() error {
		pgid := cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		go func() {
			select {
			case <-done:
			case <-time.After(KillGrace):
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}()
		return nil
	}
	cmd.WaitDelay = KillGrace + 2*time.Second
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return Result{ExitCode: -1, Interrupted: true, Err: "interrupted before it started"}
		}
		return Result{ExitCode: -1, Err: "could not start " + argv[0] + ": " + err.Error()}
	}
	err := cmd.Wait()
	close(done)
	if ctx.Err() != nil {
		// Whatever is left of the group (children that ignored SIGTERM).
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	switch {
	case err == nil && code == 0:
		return Result{ExitCode: 0}
	case ctx.Err() != nil:
		return Result{ExitCode: code, Interrupted: true, Err: "Interrupted: " + context.Cause(ctx).Error()}
	case errors.Is(err, exec.ErrWaitDelay):
		// It exited but left a child holding its output open.
		if code == 0 {
			return Result{ExitCode: 0}
		}
		return Result{ExitCode: code, Err: fmt.Sprintf("exit %d", code)}
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return Result{ExitCode: code, Err: "killed by " + ws.Signal().String()}
			}
			return Result{ExitCode: code, Err: fmt.Sprintf("exit %d", code)}
		}
		return Result{ExitCode: code, Err: err.Error()}
	}
}
