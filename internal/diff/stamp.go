package diff

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corehq/core/internal/gitx"
)

// Stamp is a fingerprint of the change Read would return, for an ETag: the
// base's commit, HEAD and the branch, the index file's identity, and the
// size, mode and modification time of each path the change names. Read
// computes the same from the paths it found (Change.Stamp); Stamp finds
// them with one git status instead of a diff, for a request that may be
// answered 304. (A file rewritten within the same nanosecond with the same
// size would not change it; git's own index has the same blind spot.)
func Stamp(ctx context.Context, root, base string) (string, error) {
	stamp, _, err := stampOf(ctx, root, base, false)
	return stamp, err
}

// StampAndSession is Stamp with the SessionKey of the same read, for the
// review page's ETag.
func StampAndSession(ctx context.Context, root, base string) (stamp, sessionKey string, err error) {
	stamp, b, err := stampOf(ctx, root, base, true)
	if err != nil {
		return "", "", err
	}
	return stamp, b.sessionKey(), nil
}

// stampOf is Stamp with the base it resolved (and the branch, withBranch).
func stampOf(ctx context.Context, root, base string, withBranch bool) (string, resolved, error) {
	b, err := resolveFor(ctx, root, base, withBranch)
	if err != nil {
		return "", resolved{}, err
	}
	st, err := gitx.Run(ctx, root, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=none", "--", ".")
	if err != nil {
		return "", resolved{}, err
	}
	if st.Exit != 0 {
		return "", resolved{}, st.Describe("status", "--porcelain=v2")
	}
	var paths []string
	for _, p := range statusPaths(st.Stdout) {
		if rel, ok := strings.CutPrefix(p, b.prefix); ok {
			paths = append(paths, rel)
		}
	}
	return b.stamp(root, paths), b, nil
}

// settle is how far before a read of the change a file's modification
// time must lie for the read to be trusted to have seen it: file systems
// stamp writes with a clock that can lag by a tick.
const settle = 50 * time.Millisecond

// stampRead is the stamp of a change git read from started on, or "" when
// a file (or the index) was modified too close to that moment: the answer
// may then hold older content than its stamp would name, and a client that
// cached it under that stamp would keep it after the change. Such an
// answer gets no ETag.
func (r resolved) stampRead(root string, paths []string, started time.Time) string {
	return r.stampReadWith(root, paths, started, os.Lstat)
}

// stampReadWith is stampRead with the lstat of files already stat'ed.
func (r resolved) stampReadWith(root string, paths []string, started time.Time, lstat func(string) (os.FileInfo, error)) string {
	stamp, _ := r.stampWith(root, paths, started.Add(-settle), lstat)
	return stamp
}

// stamp is the fingerprint of a change naming these paths (relative to
// root; order and repeats do not matter).
func (r resolved) stamp(root string, paths []string) string {
	stamp, _ := r.stampWith(root, paths, time.Time{}, os.Lstat)
	return stamp
}

// stampWith is the stamp of the paths from one lstat each; with a non-zero
// recent, "" and false when the index or a path was modified after it.
func (r resolved) stampWith(root string, paths []string, recent time.Time, lstat func(string) (os.FileInfo, error)) (string, bool) {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	h := sha256.New()
	// Not the branch: two branches at one commit with one working tree have
	// one change (the page's ETag adds the session's branch itself).
	fmt.Fprintf(h, "base %s %s head %s\n", r.Ref, r.Commit, r.head)
	var buf []byte
	add := func(name, path string, hashed bool) bool {
		st, err := lstat(path)
		if !recent.IsZero() && err == nil && st.ModTime().After(recent) {
			return false
		}
		if hashed {
			buf = appendStat(buf[:0], name, st, err)
			h.Write(buf)
		}
		return true
	}
	if !add("index", r.index, true) {
		return "", false
	}
	for _, p := range paths {
		// A nested repository is not part of the change, but its being
		// modified just now voids the read all the same.
		if !add(p, filepath.Join(root, filepath.FromSlash(p)), !strings.HasSuffix(p, "/")) {
			return "", false
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], true
}

// StatInto writes to h the line a stamp holds for the file at path under
// name (appendStat), for a fingerprint that also covers files outside
// the change (the review page's coverage files).
func StatInto(h hash.Hash, name, path string) {
	st, err := os.Lstat(path)
	h.Write(appendStat(nil, name, st, err))
}

// appendStat appends the line a stamp holds for a path: its name, then
// size, mode (octal) and modification time, or "absent".
func appendStat(b []byte, name string, st os.FileInfo, err error) []byte {
	b = append(b, name...)
	b = append(b, 0)
	if err != nil {
		return append(b, "absent\n"...)
	}
	b = strconv.AppendInt(b, st.Size(), 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(st.Mode()), 8)
	b = append(b, ' ')
	b = strconv.AppendInt(b, st.ModTime().UnixNano(), 10)
	return append(b, '\n')
}

// statusPaths returns the paths of `git status --porcelain=v2 -z` (each
// entry's path; a rename's original path follows as a token of its own
// and is skipped).
func statusPaths(out string) []string {
	var paths []string
	toks := strings.Split(out, "\x00")
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t == "" {
			continue
		}
		var fields int
		switch t[0] {
		case '1':
			fields = 9
		case '2':
			fields = 10
			i++ // the original path
		case 'u':
			fields = 11
		case '?', '!':
			fields = 2
		default:
			continue
		}
		parts := strings.SplitN(t, " ", fields)
		if len(parts) == fields {
			paths = append(paths, parts[fields-1])
		}
	}
	return paths
}
