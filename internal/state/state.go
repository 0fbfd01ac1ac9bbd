// Package state reads and writes server.json, the file a running server
// leaves in the cache directory so the CLI can find it: its address, its
// process id and the admin credential the CLI uses for token management.
// The file holds a secret, so it is mode 0600 and written atomically; a
// server removes it on the way out, but only if it is still its own.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/fsx"
)

// cachedir.ServerStateLock serialises Write and Remove so Remove's
// check-then-delete cannot remove a file a new server wrote in between. It
// is deliberately not cachedir.ServerLock, which a server may hold for its
// whole life.

// ErrNotRunning is returned by Read when there is no state file.
var ErrNotRunning = errors.New("core server is not running: start it with `core server start`")

// State describes a running server.
type State struct {
	Address    string    `json:"address"`     // host:port it listens on
	BaseURL    string    `json:"base_url"`    // e.g. http://127.0.0.1:7391
	PID        int       `json:"pid"`         // the server's process id
	StartedAt  time.Time `json:"started_at"`  // when it started
	Workspace  string    `json:"workspace"`   // the workspace root it serves
	Version    string    `json:"version"`     // core's version
	AdminToken string    `json:"admin_token"` // the ephemeral admin credential; never log
}

// Path is the state file in cacheDir.
func Path(cacheDir string) string { return cachedir.ServerState(cacheDir) }

// Write stores s as cacheDir/server.json (mode 0600), replacing any previous
// file atomically. It creates the cache directory if needed.
func Write(cacheDir string, s State) error {
	if err := fsx.EnsureCacheDir(cacheDir); err != nil {
		return err
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("write server state: %w", err)
	}
	lock, err := fsx.LockFile(cachedir.ServerStateLock(cacheDir))
	if err != nil {
		return err
	}
	defer func() { _ = lock.Unlock() }()
	return fsx.WriteFileAtomic(Path(cacheDir), append(data, '\n'), 0o600)
}

// Read loads cacheDir/server.json. A missing file is ErrNotRunning (wrapped,
// naming the file); a corrupt one is an error naming the file and the fix.
// A State read successfully may still describe a server that has died: see
// ProcessAlive.
func Read(cacheDir string) (State, error) {
	path := Path(cacheDir)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, fmt.Errorf("%w (no %s)", ErrNotRunning, path)
	}
	if err != nil {
		return State{}, fmt.Errorf("read server state %s: %w", path, err)
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return State{}, corrupt(path, err)
	}
	if s.PID <= 0 {
		return State{}, corrupt(path, fmt.Errorf("pid %d is not a process id", s.PID))
	}
	return s, nil
}

func corrupt(path string, err error) error {
	return fmt.Errorf("server state file %s is corrupt (%v): stop any running server, delete the file and run `core server start`", path, err)
}

// ProcessAlive reports whether the process named by PID exists, by sending
// it signal 0. A process owned by another user counts as alive. The pid may
// have been reused by an unrelated process; callers that need certainty
// should also contact BaseURL.
func (s State) ProcessAlive() bool {
	if s.PID <= 0 {
		return false
	}
	// execx reads the process's state: a server that ended in the
	// background of a shell that has not reaped it yet is a zombie, which
	// signal 0 still reaches, and core server stop would wait out its
	// deadline on it.
	return execx.ProcessAlive(s.PID, 0)
}

// Running reports whether a server holds the workspace's server lock: the
// one test that a reused pid cannot fool. It takes the lock for an instant
// when no server holds it.
func Running(cacheDir string) bool {
	l, err := fsx.TryLockFile(cachedir.ServerLock(cacheDir))
	if errors.Is(err, fsx.ErrLocked) {
		return true
	}
	if err == nil {
		_ = l.Unlock()
	}
	return false
}

// Live reads the state file and reports whether the server it names is
// running: the process exists and holds the server lock.
func Live(cacheDir string) (State, bool, error) {
	st, err := Read(cacheDir)
	if err != nil {
		return st, false, err
	}
	return st, st.ProcessAlive() && Running(cacheDir), nil
}

// Remove deletes cacheDir/server.json if it still names pid, so a server
// shutting down never removes the file of a newer server that replaced it.
// A missing file is not an error; a corrupt one is reported and left alone.
func Remove(cacheDir string, pid int) error {
	lock, err := fsx.LockFile(cachedir.ServerStateLock(cacheDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // no cache directory, so no state file
		}
		return err
	}
	defer func() { _ = lock.Unlock() }()
	s, err := Read(cacheDir)
	if errors.Is(err, ErrNotRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	if s.PID != pid {
		return nil
	}
	if err := os.Remove(Path(cacheDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove server state: %w", err)
	}
	return nil
}
