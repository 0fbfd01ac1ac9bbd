package runner

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/fsx"
)

// A target whose command runs has a mark, <cache>/locks/<name>.run (name as
// for its lock file): the run, the core process that runs it and the
// command's process (the leader of its group), each with its start time.
// The runner writes it as soon as the command has started and removes it
// once Exec has returned (the group killed); it outlives the run only when
// core dies first. The next run of the target finds it, under the target's
// lock, before anything else: see endOrphan.
//
// The mark duplicates what the run's journal records, so that finding it
// costs one open of a missing file, not a read of the runs directory, and
// so that it survives the journal's rotation.
type runMark struct {
	RunID      string `json:"run_id"`
	PID        int    `json:"pid"`
	PIDStart   uint64 `json:"pid_start"`
	ChildPID   int    `json:"child_pid"`
	ChildStart uint64 `json:"child_start"`
}

// lockName is the base name of a target's lock file and mark.
func lockName(target string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(target))) }

func markPath(cacheDir, target string) string {
	return filepath.Join(locksDir(cacheDir), lockName(target)+".run")
}

// writeMark records a started command. It is not synced: it matters only
// while the machine stays up, as the processes it names do.
func writeMark(cacheDir, target string, m runMark) error {
	data, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return fsx.ReplaceFile(markPath(cacheDir, target), data, 0o600)
}

func removeMark(cacheDir, target string) { _ = os.Remove(markPath(cacheDir, target)) }

// orphanWaitPoll is how often endOrphan looks again at a group that a live
// core process still owns.
const orphanWaitPoll = 50 * time.Millisecond

// endOrphan makes sure that no process of an earlier run of target is left
// before this one starts; the caller holds the target's lock. An earlier
// run's group can outlive it only if its core process died mid-run (kill
// -9, a crash): the kernel killed the command itself (Pdeathsig) but not
// the command's children. Such an orphan is ended: SIGTERM to its group,
// SIGKILL after execx.KillGrace, then a wait until the group is gone
// (execx.EndGroup). Its result could not be recorded or cached any more,
// and it may never end by itself, so waiting for it would gain nothing.
// Its journal then says "interrupted", and why.
//
// A group whose core process still lives is that process's to end (it
// does, as Exec returns, before it lets go of the lock): endOrphan waits
// for it instead, and ends it if that process dies first.
//
// An error means the orphan could not be ended, or ctx ended first; the
// target must not run then.
func (r *Runner) endOrphan(ctx context.Context, target string) error {
	data, err := os.ReadFile(markPath(r.opts.CacheDir, target))
	if err != nil {
		return nil // no mark: the usual case
	}
	var m runMark
	if json.Unmarshal(data, &m) != nil {
		removeMark(r.opts.CacheDir, target)
		return nil
	}
	ended := false
	for execx.GroupAlive(m.ChildPID, m.ChildStart) {
		if processAlive(m.PID, m.PIDStart) {
			select {
			case <-time.After(orphanWaitPoll):
				continue
			case <-ctx.Done():
				return context.Cause(ctx)
			}
		}
		if err := execx.EndGroup(ctx, m.ChildPID, m.ChildStart); err != nil {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("run %s of this target outlived its core process (pid %d), and its process group %d could not be ended: %w", m.RunID, m.PID, m.ChildPID, err)
		}
		ended = true
	}
	r.settleOrphanJournal(m, ended)
	removeMark(r.opts.CacheDir, target)
	return nil
}

// settleOrphanJournal records in the journal of the mark's run that its
// core process died before it ended (if RecoverInterrupted has not already
// done so), and whether its process group outlived core and was ended.
func (r *Runner) settleOrphanJournal(m runMark, ended bool) {
	if !ValidID(m.RunID) || processAlive(m.PID, m.PIDStart) {
		return
	}
	j, err := readJournalFile(r.opts.CacheDir, m.RunID, true)
	if err != nil {
		return // rotated out, or torn
	}
	switch {
	case unfinished(j.Status):
		markInterrupted(&j)
		j.End = time.Now().UTC()
	case j.Status == StateInterrupted && ended:
	default:
		return
	}
	if ended {
		j.Err = fmt.Sprintf("interrupted: the core process that ran it (pid %d) ended before it finished; "+
			"its process group %d outlived it and was ended before the next run of %s", m.PID, m.ChildPID, j.Target)
	}
	_ = writeJournal(r.opts.CacheDir, &j)
}
