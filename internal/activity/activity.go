// Package activity keeps the activity trail the console's activity service
// lists: runs, jobs, graph syncs and errors, newest first, capped, trimmed by
// the rotate-activities job.
//
// The trail is a JSON-lines file, <cache>/activity.jsonl, one entry a line,
// oldest first. Decisions the design leaves open, taken here:
//   - Appends use O_APPEND and one write per entry, then fsync: an entry
//     Add returned survives a crash or a power cut, so a crash loses at
//     most the write in flight (the design's rule for the cache). Entries
//     are rare (one per run, job or sync), so the fsync is affordable.
//   - A torn last line (a crash mid-write) is cut off at Open so the next
//     append starts on a line of its own; any other line that does not
//     decode is skipped, never fatal. Both are counted in Skipped.
//   - The file may outgrow the cap between trims; memory never does: the
//     store keeps a ring of the newest cap entries, which List reads.
//   - An advisory lock (activity.jsonl.lock) is held around each append
//     and each trim, and an append reopens the file if a trim in another
//     process replaced it, so another process (the CLI) may add entries too.
//   - IDs are decimal numbers that increase with every entry: microseconds
//     since the epoch, bumped to stay unique, so they stay unique even if
//     the file is deleted.
//   - A message is cut to MaxMessage bytes.
package activity

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/fsx"
)

// DefaultCap is the number of entries the trail keeps when Open gets no cap.
const DefaultCap = 1000

// MaxMessage is the longest message an entry keeps, in bytes.
const MaxMessage = 4096

// Kinds of entries.
const (
	KindRun   = "run"
	KindJob   = "job"
	KindGraph = "graph"
	KindError = "error"
)

// Entry is one activity.
type Entry struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`              // KindRun, KindJob, KindGraph, KindError
	Message string    `json:"message"`           // what happened
	Subject string    `json:"subject,omitempty"` // the node it is about (a target id), if any
}

// Store is an open activity trail. Its methods are safe for concurrent use.
type Store struct {
	path string
	cap  int

	mu      sync.Mutex
	f       *os.File // the trail, opened O_APPEND
	ring    []Entry  // the newest entries, oldest first, at most cap
	onDisk  int      // entries in the file, as far as this process knows
	lastID  int64
	skipped int   // lines that did not decode, at Open or Trim
	err     error // the last failed append or reopen
}

// Open opens (creating, mode 0600) the trail at path and loads its newest
// cap entries; cap <= 0 means DefaultCap. The directory is created if needed.
func Open(path string, cap int) (*Store, error) {
	if cap <= 0 {
		cap = DefaultCap
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open activity trail: %w", err)
	}
	s := &Store{path: path, cap: cap}
	lock, err := fsx.LockFile(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("open activity trail: %w", err)
	}
	defer func() { _ = lock.Unlock() }()
	if err := s.repairTail(); err != nil {
		return nil, err
	}
	entries, skipped, err := readAll(path)
	if err != nil {
		return nil, err
	}
	s.load(entries, skipped)
	if s.f, err = openAppend(path); err != nil {
		return nil, err
	}
	return s, nil
}

// Close closes the trail file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

func openAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open activity trail: %w", err)
	}
	return f, nil
}

// repairTail cuts a torn last line (no final newline) off the file.
func (s *Store) repairTail() error {
	f, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open activity trail: %w", err)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return err
	}
	// Walk back from the end to the last newline.
	const chunk = 64 << 10
	end := st.Size()
	buf := make([]byte, chunk)
	for pos := end; pos > 0; {
		n := int64(chunk)
		if pos < n {
			n = pos
		}
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read activity trail: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut := pos + int64(i) + 1
			if cut == end {
				return nil // ends with a newline: nothing torn
			}
			s.skipped++
			return truncate(f, cut)
		}
	}
	s.skipped++
	return truncate(f, 0) // a single torn line and nothing else
}

func truncate(f *os.File, size int64) error {
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("repair activity trail: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("repair activity trail: %w", err)
	}
	return nil
}

// readAll decodes every line of path, skipping those that do not decode.
func readAll(path string) (entries []Entry, skipped int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read activity trail: %w", err)
	}
	defer func() { _ = f.Close() }()
	r := bufio.NewReader(f)
	for {
		line, rerr := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var e Entry
			if json.Unmarshal(line, &e) == nil && e.ID != "" {
				entries = append(entries, e)
			} else {
				skipped++
			}
		}
		if errors.Is(rerr, io.EOF) {
			return entries, skipped, nil
		}
		if rerr != nil {
			return nil, 0, fmt.Errorf("read activity trail: %w", rerr)
		}
	}
}

// load replaces the in-memory state with entries (oldest first).
func (s *Store) load(entries []Entry, skipped int) {
	s.onDisk = len(entries)
	s.skipped += skipped
	if len(entries) > s.cap {
		entries = entries[len(entries)-s.cap:]
	}
	s.ring = append(make([]Entry, 0, s.cap), entries...)
	for _, e := range entries {
		if id, err := strconv.ParseInt(e.ID, 10, 64); err == nil && id > s.lastID {
			s.lastID = id
		}
	}
}

// Add appends an entry and returns it. It never fails: an entry that could
// not be written stays in memory, and Err reports the failure.
func (s *Store) Add(kind, message, subject string) Entry {
	return s.AddAll([]Draft{{Kind: kind, Message: message, Subject: subject}})[0]
}

// Draft is an entry before it is added: what Add takes.
type Draft struct {
	Kind, Message, Subject string
}

// AddAll appends entries as Add does, in order, with one write and one
// fsync for all of them: a run of fifty targets files fifty entries at its
// end, and fifty fsyncs were most of the time a cached run took.
func (s *Store) AddAll(drafts []Draft) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Entry, 0, len(drafts))
	if len(drafts) == 0 {
		return out
	}
	now := time.Now().UTC().Round(0)
	for _, d := range drafts {
		id := now.UnixMicro()
		if id <= s.lastID {
			id = s.lastID + 1
		}
		s.lastID = id
		e := Entry{ID: strconv.FormatInt(id, 10), Time: now, Kind: d.Kind, Message: clip(d.Message), Subject: d.Subject}
		if len(s.ring) == s.cap {
			copy(s.ring, s.ring[1:])
			s.ring = s.ring[:s.cap-1]
		}
		s.ring = append(s.ring, e)
		out = append(out, e)
	}
	if err := s.appendLocked(out); err != nil {
		s.err = err
	} else {
		s.onDisk += len(out)
	}
	return out
}

func (s *Store) appendLocked(es []Entry) error {
	var lines []byte
	for _, e := range es {
		line, err := json.Marshal(e)
		if err != nil {
			return fmt.Errorf("add activity: %w", err)
		}
		lines = append(append(lines, line...), '\n')
	}
	lock, err := fsx.LockFile(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("add activity: %w", err)
	}
	defer func() { _ = lock.Unlock() }()
	if err := s.reopenIfReplacedLocked(); err != nil {
		return err
	}
	if _, err := s.f.Write(lines); err != nil {
		return fmt.Errorf("add activity: %w", err)
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("add activity: %w", err)
	}
	return nil
}

// reopenIfReplacedLocked reopens the trail when the open file is no longer
// the one at path (a trim, here or in another process, replaced it; or the
// store was closed).
func (s *Store) reopenIfReplacedLocked() error {
	if s.f != nil {
		open, err1 := s.f.Stat()
		cur, err2 := os.Stat(s.path)
		if err1 == nil && err2 == nil && os.SameFile(open, cur) {
			return nil
		}
		_ = s.f.Close()
		s.f = nil
	}
	f, err := openAppend(s.path)
	if err != nil {
		return err
	}
	s.f = f
	return nil
}

// clip cuts a message to MaxMessage bytes on a rune boundary.
func clip(msg string) string {
	if len(msg) <= MaxMessage {
		return msg
	}
	cut := MaxMessage - len("…")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "…"
}

// List returns up to limit entries (limit <= 0: every entry in memory, at
// most the cap), newest first, only of kind unless kind is "".
func (s *Store) List(limit int, kind string) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Entry{}
	for i := len(s.ring) - 1; i >= 0; i-- {
		if limit > 0 && len(out) == limit {
			break
		}
		if kind == "" || s.ring[i].Kind == kind {
			out = append(out, s.ring[i])
		}
	}
	return out
}

// Len reports how many entries the trail file holds, as far as this process
// knows (it may exceed the cap until Trim): the size rotate-activities
// maintains.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onDisk
}

// Cap reports the number of entries the trail keeps.
func (s *Store) Cap() int { return s.cap }

// Skipped reports how many lines could not be decoded (torn or corrupt) and
// were left out, at Open and at every Trim.
func (s *Store) Skipped() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.skipped
}

// Err reports the last failure to write an entry, nil if none.
func (s *Store) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Trim rewrites the trail with only its newest cap entries (atomically:
// a crash leaves the old file or the new one) and reports how many it
// removed. It rereads the file under the lock, so entries another process
// added are counted and kept in order, and the in-memory ring is refreshed
// from what the file keeps.
func (s *Store) Trim() (removed int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lock, err := fsx.LockFile(s.path + ".lock")
	if err != nil {
		return 0, fmt.Errorf("trim activity trail: %w", err)
	}
	defer func() { _ = lock.Unlock() }()
	if err := s.repairTail(); err != nil {
		return 0, err
	}
	entries, skipped, err := readAll(s.path)
	if err != nil {
		return 0, err
	}
	keep := entries
	if len(keep) > s.cap {
		keep = keep[len(keep)-s.cap:]
	}
	removed = len(entries) - len(keep)
	if removed == 0 && skipped == 0 {
		s.load(entries, 0)
		return 0, nil
	}
	var buf bytes.Buffer
	for _, e := range keep {
		line, err := json.Marshal(e)
		if err != nil {
			return 0, fmt.Errorf("trim activity trail: %w", err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := fsx.WriteFileAtomic(s.path, buf.Bytes(), 0o600); err != nil {
		return 0, fmt.Errorf("trim activity trail: %w", err)
	}
	if err := s.reopenIfReplacedLocked(); err != nil {
		s.err = err
	}
	s.load(keep, skipped)
	return removed, nil
}
