package runner

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

// killGrace is how long a cancelled target's process group has between
// SIGTERM and SIGKILL.
const killGrace = 3 * time.Second

// capture keeps a target's combined output up to OutputCap: the first half
// and the last half, with a marker where bytes were left out.
type capture struct {
	mu    sync.Mutex
	head  []byte
	tail  []byte // ring buffer once full
	tpos  int
	total int64
	live  *prefixWriter
}

const halfCap = OutputCap / 2

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	if c.live != nil {
		c.live.write(p)
	}
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

// result returns the kept output and whether bytes were left out.
func (c *capture) result() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live != nil {
		c.live.flush()
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

// prefixWriter copies a target's output to the shared live writer, one
// whole line at a time under the writer's lock, each line prefixed, so
// concurrent targets never interleave inside a line.
type prefixWriter struct {
	out    *lockedWriter
	prefix []byte
	line   []byte
}

const maxLine = 64 << 10

func (w *prefixWriter) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.line = append(w.line, p...)
			if len(w.line) >= maxLine {
				w.emit(append(w.line, '\n'))
			}
			return
		}
		w.emit(append(w.line, p[:i+1]...))
		p = p[i+1:]
	}
}

func (w *prefixWriter) emit(line []byte) {
	w.out.writeLine(w.prefix, line)
	w.line = w.line[:0]
}

func (w *prefixWriter) flush() {
	if len(w.line) > 0 {
		w.emit(append(w.line, '\n'))
	}
}

type lockedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lockedWriter) writeLine(prefix, line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(append(l.buf[:0], prefix...), line...)
	_, _ = l.w.Write(l.buf)
}

// replay writes captured output through a fresh prefixer (cache hits).
func (l *lockedWriter) replay(prefix, output string) {
	if l == nil || output == "" {
		return
	}
	w := &prefixWriter{out: l, prefix: []byte(prefix)}
	w.write([]byte(output))
	w.flush()
}

// execResult is how a process ended.
type execResult struct {
	exitCode    int
	err         string // why it did not run or end normally
	interrupted bool
}

// execute runs argv in dir, its own process group, stdout and stderr into
// out (one pipe, so they interleave as written). Cancelling ctx sends
// SIGTERM to the group, then SIGKILL after killGrace.
func execute(ctx context.Context, argv []string, dir string, out io.Writer) execResult {
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
			case <-time.After(killGrace):
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}()
		return nil
	}
	cmd.WaitDelay = killGrace + 2*time.Second
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return execResult{exitCode: -1, interrupted: true, err: "interrupted before it started"}
		}
		return execResult{exitCode: -1, err: "could not start " + argv[0] + ": " + err.Error()}
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
		return execResult{exitCode: 0}
	case ctx.Err() != nil:
		return execResult{exitCode: code, interrupted: true, err: "interrupted: " + context.Cause(ctx).Error()}
	case errors.Is(err, exec.ErrWaitDelay):
		// It exited but left a child holding its output open.
		if code == 0 {
			return execResult{exitCode: 0}
		}
		return execResult{exitCode: code, err: fmt.Sprintf("exit %d", code)}
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return execResult{exitCode: code, err: "killed by " + ws.Signal().String()}
			}
			return execResult{exitCode: code, err: fmt.Sprintf("exit %d", code)}
		}
		return execResult{exitCode: code, err: err.Error()}
	}
}
