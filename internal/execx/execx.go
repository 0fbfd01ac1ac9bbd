// Package execx runs a declared argv (a target's or a spell's) the way core
// always does: no shell, a working directory inside the workspace, its own
// process group so that cancelling ends the whole tree (SIGTERM, then
// SIGKILL), and output captured up to a cap.
//
// # Children die with core
//
// A command's process group is killed (SIGKILL) on every way out of Exec:
// when the command exits (its background processes do not outlive it),
// when ctx is cancelled (after SIGTERM and KillGrace), and when the
// goroutine running Exec panics. KillAllGroups kills every group still
// running, for a process about to crash.
//
// None of that runs when core itself is killed (SIGKILL, the OOM killer).
// On Linux the command's first process then gets SIGKILL from the kernel
// (Pdeathsig). The kernel sends it when the thread that forked the child
// ends, not the process (https://go.dev/issue/27505), and the Go runtime
// ends a thread whose goroutine exits while locked to it; so Exec locks its
// goroutine to its thread from Start until Wait returns: no other
// goroutine can run on that thread, hence none can end it, while the child
// lives. Pdeathsig is not inherited by the child's own children; those stay
// in its process group, which the caller can record (ExecStarted), test
// (GroupAlive) and end later (EndGroup).
package execx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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

// Exec runs argv (never through a shell) in dir, its own process group,
// with env as its whole environment (nil: core's own; package targetenv
// says what a target gets), stdout and stderr into out (one pipe, so they
// interleave as written). Cancelling ctx sends SIGTERM to the group, then
// SIGKILL after KillGrace. Whatever is left of the group when Exec returns
// is killed.
func Exec(ctx context.Context, argv []string, dir string, env []string, out io.Writer) Result {
	return ExecStarted(ctx, argv, dir, env, out, nil)
}

// ExecStarted is Exec that calls started, when it is not nil, with the
// command's pid (also its process group id) as soon as it has started and
// before it is waited for, in the goroutine that called ExecStarted.
func ExecStarted(ctx context.Context, argv []string, dir string, env []string, out io.Writer, started func(pid int)) Result {
	if len(argv) == 0 {
		return Result{ExitCode: -1, Err: "empty argv"}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = sysProcAttr()
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
	// The thread that forks the child must live as long as the child: see
	// the package comment (Pdeathsig).
	defer pinThread()()
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return Result{ExitCode: -1, Interrupted: true, Err: "interrupted before it started"}
		}
		return Result{ExitCode: -1, Err: "could not start " + argv[0] + ": " + err.Error()}
	}
	pgid := cmd.Process.Pid
	track(pgid)
	// Every way out, a panic included: whatever is left of the group
	// (children that ignored SIGTERM, background processes of a command
	// that exited). When nothing is left, the signal finds no group: the
	// pid was freed a moment ago, and Linux hands pids out in sequence, so
	// no other group has taken it.
	defer func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		untrack(pgid)
	}()
	if started != nil {
		started(pgid)
	}
	err := cmd.Wait()
	close(done)
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

// groups are the process groups Exec has started and not yet killed.
var groups = struct {
	sync.Mutex
	m map[int]struct{}
}{m: map[int]struct{}{}}

func track(pgid int) {
	groups.Lock()
	groups.m[pgid] = struct{}{}
	groups.Unlock()
}

func untrack(pgid int) {
	groups.Lock()
	delete(groups.m, pgid)
	groups.Unlock()
}

// KillAllGroups sends SIGKILL to every process group Exec has started and
// not yet ended, and returns how many it signalled. It is for a process
// about to die of a panic: Pdeathsig would reach the groups' first
// processes, not their children.
func KillAllGroups() int {
	groups.Lock()
	defer groups.Unlock()
	for pgid := range groups.m {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	return len(groups.m)
}

// GroupAlive reports whether process group pgid, whose first process
// started at leaderStart (StartTime; 0 when unknown), still has a member
// that is not a zombie. If pgid now names a process with another start
// time, the pid was reused, which the kernel allows only once the group is
// gone: false.
func GroupAlive(pgid int, leaderStart uint64) bool {
	if pgid <= 0 {
		return false
	}
	if leaderStart != 0 {
		if st := StartTime(pgid); st != 0 && st != leaderStart {
			return false
		}
	}
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	return groupHasLiveMember(pgid)
}

// groupPoll is how often EndGroup looks whether a group is gone.
const groupPoll = 50 * time.Millisecond

// groupKillWait is how long EndGroup waits for a group to go after SIGKILL
// before it reports that it could not end it (members that belong to
// another user, or stuck in the kernel).
const groupKillWait = 10 * time.Second

// EndGroup ends process group pgid (see GroupAlive for leaderStart):
// SIGTERM, SIGKILL after KillGrace, and it returns once no member is left.
// When ctx ends first it sends SIGKILL and returns ctx's cause.
func EndGroup(ctx context.Context, pgid int, leaderStart uint64) error {
	if !GroupAlive(pgid, leaderStart) {
		return nil
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	if waitGroupGone(ctx, pgid, leaderStart, KillGrace) {
		return nil
	}
	if GroupAlive(pgid, leaderStart) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if waitGroupGone(ctx, pgid, leaderStart, groupKillWait) {
		return nil
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return fmt.Errorf("process group %d is still there %s after SIGKILL", pgid, groupKillWait)
}

// waitGroupGone polls until the group is gone (true), d passes or ctx ends.
func waitGroupGone(ctx context.Context, pgid int, leaderStart uint64, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	tick := time.NewTicker(groupPoll)
	defer tick.Stop()
	for {
		if !GroupAlive(pgid, leaderStart) {
			return true
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return !GroupAlive(pgid, leaderStart)
		case <-ctx.Done():
			return !GroupAlive(pgid, leaderStart)
		}
	}
}

// SelfStart returns this process's start time (StartTime(os.Getpid())),
// read once when first asked: a command that never records a process does
// not read /proc at start.
var SelfStart = sync.OnceValue(func() uint64 { return StartTime(os.Getpid()) })

// stat is what core reads of a process (on Linux, /proc/PID/stat).
type stat struct {
	state byte // R, S, D, Z (zombie), ...
	pgrp  int
	start uint64 // clock ticks since boot
}

// StartTime returns a process's start time in clock ticks since boot (field
// 22 of /proc/PID/stat), or 0 when it cannot be read (always, off Linux).
// With the pid it names one process: a reused pid gets another start time.
func StartTime(pid int) uint64 {
	st, ok := readStat(pid)
	if !ok {
		return 0
	}
	return st.start
}

// ProcessAlive reports whether process pid, started at start (StartTime; 0
// when unknown), still runs. A zombie does not; a pid that now names a
// process with another start time was reused.
func ProcessAlive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false // ESRCH: no such process
	}
	st, ok := readStat(pid)
	if !ok {
		return true
	}
	return st.state != 'Z' && st.state != 'X' && (start == 0 || st.start == start)
}
