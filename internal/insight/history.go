package insight

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/gitx"
)

// historyVersion changes when History's encoding does; an older file is
// read again from git.
const historyVersion = 1

// History is the whole history of HEAD, read once and extended commit by
// commit: what every lens is computed from. Files are numbered; a rename
// moves a file's number to its new path, so a file's past follows it.
type History struct {
	Version int
	Tip     string   // the newest commit read
	Shallow bool     // the clone is shallow: the oldest commits are missing
	Paths   []string // file number -> its path now (or when it was last seen)
	Authors []string // author number -> name, as .mailmap maps it
	Commits []Commit // oldest first; merge commits are not read
	// Unfollowed are the commits read without rename detection, because it
	// passed the read's time bound on them (or on maxSlow commits before
	// them in the same read): the files they renamed start over at their
	// new paths.
	Unfollowed []Unfollowed
	// RenameLimited says git's rename limit (RenameLimit) stopped rename
	// detection by content in at least one commit read.
	RenameLimited bool

	index   map[string]int32 // path -> file number, rebuilt on load
	authors map[string]int32
}

// Commit is one non-merge commit.
type Commit struct {
	Time   int64   // author time, Unix seconds
	Author int32   // into History.Authors
	Files  []int32 // into History.Paths
}

// Unfollowed is a commit read without rename detection.
type Unfollowed struct {
	Hash string
	Time int64 // author time, Unix seconds
}

func newHistory() *History {
	return &History{Version: historyVersion, index: map[string]int32{}, authors: map[string]int32{}}
}

func (h *History) rebuild() {
	h.index = make(map[string]int32, len(h.Paths))
	for i, p := range h.Paths {
		h.index[p] = int32(i)
	}
	h.authors = make(map[string]int32, len(h.Authors))
	for i, a := range h.Authors {
		h.authors[a] = int32(i)
	}
}

func (h *History) file(path string) int32 {
	if id, ok := h.index[path]; ok {
		return id
	}
	id := int32(len(h.Paths))
	h.Paths = append(h.Paths, path)
	h.index[path] = id
	return id
}

// rename moves old's number to new: the file's past now belongs to new.
func (h *History) rename(old, new string) int32 {
	id, ok := h.index[old]
	if !ok {
		return h.file(new)
	}
	delete(h.index, old)
	h.index[new] = id
	h.Paths[id] = new
	return id
}

func (h *History) author(name string) int32 {
	if id, ok := h.authors[name]; ok {
		return id
	}
	id := int32(len(h.Authors))
	h.Authors = append(h.Authors, name)
	h.authors[name] = id
	return id
}

// logFormat starts each commit with a record separator and its fields
// separated by unit separators; -z ends the header with a NUL and each
// numstat entry with a NUL (a rename's entry is "A\tD\t\0old\0new\0").
const logFormat = "--format=%x1e%H%x1f%at%x1f%aN"

// Bounds of a history read. Rename detection is what can take a history
// read hostage: git's exact matching of identical files is quadratic in
// their number (one commit renaming 20,000 identical files takes 18 s,
// 100,000 over 300 s), and a configured diff.renameLimit can lift the
// limit of the inexact kind. So a read gives git an explicit limit, and
// each commit a time bound.
const (
	// RenameLimit is git's -l: the most files on each side of a commit
	// that rename detection compares by content (git's own default, kept
	// whatever the configuration says).
	RenameLimit = 1000
	// DefaultCommitBound is how long one commit's diff may take with
	// rename detection (Options.CommitBound); a commit past it is read
	// again without.
	DefaultCommitBound = 5 * time.Second
	// maxSlow commits past the bound in one read, and the rest of that
	// read goes without rename detection: a read waits on it at most
	// maxSlow times the bound.
	maxSlow = 3
)

// marker is the line read writes after each commit id it gives git
// diff-tree --stdin. It is not a commit id, so diff-tree echoes it (and
// flushes) once it has written that commit's record: it ends each record
// whatever bytes the paths hold, and it tells the time bound that git is
// moving.
const marker = '\x1d'

// read adds the commits of rng (oldest first) to h. It returns the newest
// commit of rng ("" when none).
//
// The commits are listed first (git rev-list), then diffed one after the
// other by one git diff-tree --stdin, which prints what git log would for
// them; a commit that takes longer than bound is read again without rename
// detection (and after maxSlow of them, the rest are too). Those commits
// are kept in h.Unfollowed, for the answer's notes.
func (h *History) read(ctx context.Context, root, rng string, bound time.Duration) (string, error) {
	// --relative and the pathspec: a workspace in a subdirectory of its
	// repository sees its own commits, with paths relative to it.
	list, err := gitx.Output(ctx, root, "rev-list", "--reverse", "--no-merges", rng, "--", ".")
	if err != nil {
		return "", err
	}
	commits := strings.Fields(list)
	slow := 0
	for i := 0; i < len(commits); {
		follow := slow < maxSlow
		n, stalled, err := h.readSome(ctx, root, commits[i:], follow, bound)
		i += n
		if err != nil {
			return "", err
		}
		if !stalled {
			continue
		}
		// commits[i] is past the bound: read it alone, without renames.
		slow++
		if _, _, err := h.readSome(ctx, root, commits[i:i+1], false, 0); err != nil {
			return "", err
		}
		i++
	}
	if len(commits) == 0 {
		return "", nil
	}
	return commits[len(commits)-1], nil
}

// readSome reads commits with one git diff-tree --stdin, following renames
// when follow is set, within bound per commit (none when 0 or !follow). It
// returns how many it read whole; stalled says git was stopped because the
// next one passed the bound.
func (h *History) readSome(ctx context.Context, root string, commits []string, follow bool, bound time.Duration) (int, bool, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	renames := []string{"--no-renames"}
	if follow {
		renames = []string{"-M", "-l" + strconv.Itoa(RenameLimit)}
	}
	args := append([]string{"diff-tree", "--stdin", "-r", "--root", "-z", "--numstat", "--relative", "--no-color"}, renames...)
	cmd := gitx.Command(rctx, root, append(args, logFormat, "--", ".")...)
	var in bytes.Buffer
	for _, c := range commits {
		in.WriteString(c)
		in.WriteByte('\n')
		in.WriteByte(marker)
		in.WriteByte('\n')
	}
	cmd.Stdin = &in
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, false, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return 0, false, gitx.ErrNotInstalled
		}
		return 0, false, err
	}
	var past atomic.Bool
	progress := func() {}
	if follow && bound > 0 {
		watchdog := time.AfterFunc(bound, func() { past.Store(true); cancel() })
		defer watchdog.Stop()
		progress = func() { watchdog.Reset(bound) }
	}
	n, perr := h.parse(out, commits, !follow, progress)
	if perr != nil {
		_ = cmd.Process.Kill()
	}
	werr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return n, false, ctx.Err()
	case n < len(commits) && past.Load():
		return n, true, nil // what was cut short is read again
	case perr != nil:
		return n, false, perr
	case werr != nil && !past.Load():
		return n, false, fmt.Errorf("git diff-tree: %v: %s", werr, strings.TrimSpace(stderr.String()))
	case n < len(commits):
		return n, false, fmt.Errorf("git diff-tree stopped after %d of %d commits: %s", n, len(commits), strings.TrimSpace(stderr.String()))
	}
	// git says so once, at the end, without naming the commit.
	if strings.Contains(stderr.String(), "rename detection was skipped") {
		h.RenameLimited = true
	}
	return n, false, nil
}

// record is one commit as git printed it.
type record struct {
	hash, author string
	time         int64
	files        []entry
}

// entry is one file of a commit: a change to path, or a rename (from set).
type entry struct{ from, path string }

// parse reads git diff-tree's records of commits (in their order) from r:
// each is "\x1eHASH\x1fTIME\x1fNAME\0" and numstat entries, or nothing for
// a commit whose diff is empty here, then the marker line. A commit is
// added to h only once its marker is read, so a record cut short leaves h
// as it was; unfollowed records the commits in h.Unfollowed, and progress
// is called after each. It returns how many commits were read whole.
func (h *History) parse(r io.Reader, commits []string, unfollowed bool, progress func()) (int, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	n := 0
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		var rec *record
		if b == 0x1e {
			if rec, err = readRecord(br); err != nil {
				return n, err
			}
			if n >= len(commits) || rec.hash != commits[n] {
				return n, fmt.Errorf("git diff-tree: commit %s came where another was expected", quoteHash(rec.hash))
			}
		} else if b != marker {
			return n, fmt.Errorf("git diff-tree: a record starts with %q", b)
		}
		if nl, err := br.ReadByte(); err != nil || nl != '\n' {
			return n, fmt.Errorf("git diff-tree: a record does not end as asked: %w", errors.Join(err, io.ErrUnexpectedEOF))
		}
		if rec != nil {
			c := Commit{Time: rec.time, Author: h.author(rec.author)}
			for _, f := range rec.files {
				if f.from != "" {
					c.Files = append(c.Files, h.rename(f.from, f.path))
				} else {
					c.Files = append(c.Files, h.file(f.path))
				}
			}
			h.Commits = append(h.Commits, c)
			if unfollowed {
				h.Unfollowed = append(h.Unfollowed, Unfollowed{Hash: rec.hash, Time: rec.time})
			}
		}
		n++
		progress()
	}
}

// readRecord reads one commit's record after its 0x1e, up to (and
// including) the marker's first byte.
func readRecord(br *bufio.Reader) (*record, error) {
	head, err := br.ReadBytes(0)
	if err != nil {
		return nil, fmt.Errorf("git diff-tree: a commit header is cut short: %w", io.ErrUnexpectedEOF)
	}
	fields := bytes.Split(head[:len(head)-1], []byte{0x1f})
	if len(fields) != 3 {
		return nil, fmt.Errorf("git diff-tree: a commit header does not parse: %q", truncate(head))
	}
	hash := string(fields[0])
	t, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("git diff-tree: commit %s has no time", quoteHash(hash))
	}
	rec := &record{hash: hash, time: t, author: strings.ToValidUTF8(string(fields[2]), "\uFFFD")}
	token := func() (string, error) {
		tok, err := br.ReadBytes(0)
		if err != nil {
			return "", fmt.Errorf("git diff-tree: commit %s is cut short: %w", quoteHash(hash), io.ErrUnexpectedEOF)
		}
		return string(tok[:len(tok)-1]), nil
	}
	for {
		b, err := br.ReadByte()
		switch {
		case err != nil:
			return nil, fmt.Errorf("git diff-tree: commit %s is cut short: %w", quoteHash(hash), io.ErrUnexpectedEOF)
		case b == '\n':
			continue // after the header
		case b == marker:
			return rec, nil
		}
		_ = br.UnreadByte()
		// "ADDED\tDELETED\tPATH"; "-" for binary files; PATH empty for a
		// rename, whose old and new paths follow.
		tok, err := token()
		if err != nil {
			return nil, err
		}
		parts := strings.SplitN(tok, "\t", 3)
		if len(parts) != 3 {
			return nil, fmt.Errorf("git diff-tree: commit %s: a numstat entry does not parse: %q", quoteHash(hash), truncate([]byte(tok)))
		}
		if parts[2] != "" {
			rec.files = append(rec.files, entry{path: parts[2]})
			continue
		}
		from, err := token()
		if err != nil {
			return nil, err
		}
		to, err := token()
		if err != nil {
			return nil, err
		}
		rec.files = append(rec.files, entry{from: from, path: to})
	}
}

// quoteHash is a commit id as an error may show it.
func quoteHash(h string) string { return strconv.Quote(string(truncate([]byte(h)))) }

func truncate(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// loadHistory reads the kept history; a missing, damaged or older one is
// nil (it is read again from git).
func loadHistory(path string) *History {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	h := &History{}
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(h); err != nil || h.Version != historyVersion {
		return nil
	}
	h.rebuild()
	return h
}

// save keeps the history, atomically.
func (h *History) save(path string) error {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(h); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(path, buf.Bytes(), 0o600)
}
