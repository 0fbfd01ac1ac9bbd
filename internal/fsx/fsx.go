// Package fsx holds the two file primitives every store in core relies on:
// atomic replacement (a crash leaves the old file or the new one, never half
// of either) and an advisory lock that serialises read-modify-write cycles
// between processes (the server and the CLI share the cache directory).
package fsx

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFileAtomic writes data to path through a temporary file in the same
// directory: write, fsync, chmod, rename, then fsync the directory so the
// rename itself survives a power cut.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := writeTemp(path, perm, true, bytesOf(data))
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(filepath.Dir(path))
	return nil
}

// ReplaceFile replaces path atomically (a temporary file, then rename)
// without fsync: a crash of the process leaves the old file or the new one,
// a power cut may lose the new one. It is for what matters only while the
// machine stays up, such as which processes are running.
func ReplaceFile(path string, data []byte, perm os.FileMode) error {
	return ReplaceFileParts(path, perm, data)
}

// ReplaceFileParts is ReplaceFile of the parts written one after another,
// for data too big to join into one slice first.
func ReplaceFileParts(path string, perm os.FileMode, parts ...[]byte) error {
	return ReplaceFileFrom(path, perm, bytesOf(parts...))
}

// ReplaceFileFrom is ReplaceFile of what write writes, for data made as it
// is written (an encoding too big to hold whole). An error from write
// leaves path as it was.
func ReplaceFileFrom(path string, perm os.FileMode, write func(io.Writer) error) error {
	tmp, err := writeTemp(path, perm, false, write)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// bytesOf is a writeTemp's write of parts, one after another.
func bytesOf(parts ...[]byte) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, data := range parts {
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		return nil
	}
}

// writeTemp writes what write writes, with mode perm, to a new temporary
// file beside path, fsynced if sync, and returns its name; on error it
// leaves none.
func writeTemp(path string, perm os.FileMode, sync bool, write func(io.Writer) error) (name string, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if cerr := tmp.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("write %s: %w", path, cerr)
		}
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err = write(tmp); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if sync {
		if err = tmp.Sync(); err != nil {
			return "", fmt.Errorf("write %s: %w", path, err)
		}
	}
	return tmp.Name(), nil
}

func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	_ = d.Close()
}

// Lock is an exclusive advisory lock on a file, held until Unlock.
type Lock struct{ f *os.File }

// LockFile blocks until it holds an exclusive lock on path (created 0600 if
// missing). The lock dies with the process, so a crash never wedges it.
func LockFile(path string) (*Lock, error) {
	f, err := openFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// ErrLocked is returned by TryLockFile when another holder has the lock.
var ErrLocked = errors.New("locked by another process")

// TryLockFile takes an exclusive lock on path without waiting: ErrLocked
// when another process (or another open of the file) holds it.
func TryLockFile(path string) (*Lock, error) {
	f, err := openFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrLocked
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}

// EnsureCacheDir creates dir (0700) and a .gitignore inside it that ignores
// everything, so the cache never shows up in `git status`.
func EnsureCacheDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create cache directory %s: %w", dir, err)
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
		if err := WriteFileAtomic(gi, []byte("# core's cache directory ignores itself\n*\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ErrTooLarge says a file is over the limit ReadAtMost was given.
var ErrTooLarge = errors.New("file is over its size limit")

// ReadAtMost reads a file of at most limit bytes, never holding more than
// limit+1 of them: a larger file is ErrTooLarge (ReadSized, by contrast,
// takes a size already known, not a limit).
func ReadAtMost(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readLimited(f, path, limit)
}

// readLimited reads r whole if it holds at most limit bytes, never more
// than limit+1 of them; name says which file in the error.
func readLimited(r io.Reader, name string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (%d bytes)", name, ErrTooLarge, limit)
	}
	return data, nil
}

// ReadSized reads a regular file whose size the caller has just seen (a
// directory walk's): open, one read, close. os.ReadFile makes ten system
// calls on Linux (it also sets the file non-blocking and back, tries to
// add it to the poller, stats it and reads once more to see the end), and
// at 100k files those were a tenth of the indexer's CPU. A file that is no
// longer that size is read again with os.ReadFile.
func ReadSized(path string, size int64) ([]byte, error) {
	if size < 0 || size > 1<<30 {
		return os.ReadFile(path)
	}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, size+1) // one byte more shows a file that grew
	n := 0
	for n < len(buf) {
		var m int
		err = ignoringEINTR(func() (err error) {
			m, err = syscall.Read(fd, buf[n:])
			return err
		})
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
		if int64(n) == size {
			break // the size seen: a short read of a regular file is its end
		}
	}
	if int64(n) != size {
		return os.ReadFile(path)
	}
	return buf[:n:n], nil
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
