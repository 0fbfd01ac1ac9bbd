// Package reviewstate keeps a person's review of their own change: per
// branch, a cursor, viewed marks, and comments anchored to a line, each
// stamped with the author the caller's credential names (the route
// decides it; a payload that names an author is refused).
//
// Decisions the spec leaves open, taken here:
//   - One JSON file per branch, <cache>/review/<sha256(branch)[:16]>.json,
//     mode 0600, replaced atomically under an advisory lock (<file>.lock),
//     so two servers or two requests never lose an update.
//   - Every write carries the version it read (Op.Version, or If-Match);
//     a stale one is refused with the current version (StaleError), never
//     merged.
//   - A viewed mark holds for a file at a content hash (the git blob id of
//     the working-tree file): View drops the marks whose file changed since,
//     and keeps them stored, so undoing the edit brings the mark back.
//   - A comment keeps the text of its line; View flags it outdated when
//     the line reads otherwise now. Ids ("c1", "c2", ...) are never reused
//     within a branch.
//   - A file that does not decode is moved aside (<file>.corrupt), under
//     the lock, and the branch starts again at version 0; Session.Notice
//     says so.
//   - A write after which the file would pass its cap (32 MB, encoded
//     without HTML escaping) is refused (SizeError, a 413), so that what is
//     written always reads back.
package reviewstate

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/fsx"
)

// Bounds on what a session holds.
const (
	MaxBody     = 8192 // bytes of a comment
	MaxText     = 1000 // bytes of the commented line's text
	MaxComments = 1000 // per branch
	MaxViewed   = 10000
)

// maxFile bounds a session's file, read and written (a variable for tests).
var maxFile = 32 << 20

// Author is who wrote: the kind and id of the token the request carried.
type Author struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// Cursor is where the reviewer is.
type Cursor struct {
	Path   string    `json:"path"`
	Line   int       `json:"line"`
	Author Author    `json:"author"`
	At     time.Time `json:"at"`
}

// Mark says a file was viewed at a content hash.
type Mark struct {
	Path   string    `json:"path"`
	Hash   string    `json:"hash"`
	Author Author    `json:"author"`
	At     time.Time `json:"at"`
}

// Comment is anchored to a file, a line and that line's text.
type Comment struct {
	ID         string     `json:"id"`
	Path       string     `json:"path"`
	Line       int        `json:"line"`
	Text       string     `json:"text"`
	Body       string     `json:"body"`
	Author     Author     `json:"author"`
	At         time.Time  `json:"at"`
	Resolved   bool       `json:"resolved"`
	ResolvedBy *Author    `json:"resolved_by"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	// Outdated is computed by View: the line no longer reads Text.
	Outdated bool `json:"outdated"`
}

// Session is one branch's review state.
type Session struct {
	Branch   string    `json:"branch"`
	Version  int       `json:"version"`
	Cursor   *Cursor   `json:"cursor"`
	Viewed   []Mark    `json:"viewed"`
	Comments []Comment `json:"comments"`
	// Notice says the stored state could not be read and was set aside.
	Notice string `json:"notice,omitempty"`
}

// file is what is stored.
type file struct {
	Session
	NextID int `json:"next_id"`
}

// Store holds the sessions of a workspace.
type Store struct {
	dir string
	now func() time.Time
	mu  sync.Mutex // one writer per process; the file lock covers others
}

// NewStore keeps sessions under cacheDir/review.
func NewStore(cacheDir string) *Store {
	return &Store{dir: cachedir.Reviews(cacheDir), now: time.Now}
}

func (s *Store) path(branch string) string {
	sum := sha256.Sum256([]byte(branch))
	return filepath.Join(s.dir, hex.EncodeToString(sum[:])[:16]+".json")
}

// Load returns branch's session as stored (version 0 when none).
func (s *Store) Load(branch string) (Session, error) {
	f, err := s.read(branch, false)
	return f.Session, err
}

// read reads branch's file. A file that does not decode is moved aside,
// always under the file's lock: a reader that finds one takes the lock,
// reads again (a writer may have replaced it meanwhile) and moves it then.
func (s *Store) read(branch string, locked bool) (file, error) {
	p := s.path(branch)
	empty := file{Session: Session{Branch: branch, Viewed: []Mark{}, Comments: []Comment{}}, NextID: 1}
	data, err := fsx.ReadAtMost(p, int64(maxFile))
	if errors.Is(err, fs.ErrNotExist) {
		return empty, nil
	}
	if errors.Is(err, fsx.ErrTooLarge) {
		return empty, fmt.Errorf("the review session file is over %d MB: delete it or some of its comments (%w)", maxFile>>20, err)
	}
	if err != nil {
		return empty, err
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil || f.Branch != branch || f.Version < 0 {
		if !locked {
			s.mu.Lock()
			defer s.mu.Unlock()
			lock, err := fsx.LockFile(p + ".lock")
			if err != nil {
				return empty, err
			}
			defer lock.Unlock()
			return s.read(branch, true)
		}
		aside := p + ".corrupt"
		if rerr := os.Rename(p, aside); rerr != nil {
			return empty, fmt.Errorf("the review session file %s does not decode and cannot be moved aside: %w", p, rerr)
		}
		empty.Notice = fmt.Sprintf("the stored review session did not decode; it was moved to %s and this branch starts again", aside)
		return empty, nil
	}
	if f.Viewed == nil {
		f.Viewed = []Mark{}
	}
	if f.Comments == nil {
		f.Comments = []Comment{}
	}
	f.NextID = max(f.NextID, 1)
	return f, nil
}

// Apply performs op on branch's session for author and returns the new
// session. Errors: *StaleError, *InputError, *TooManyError, or a failure
// to read or write the file.
func (s *Store) Apply(branch string, author Author, op Op) (Session, error) {
	version, err := op.version()
	if err != nil {
		return Session{}, err
	}
	if err := op.validate(); err != nil {
		return Session{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return Session{}, err
	}
	lock, err := fsx.LockFile(s.path(branch) + ".lock")
	if err != nil {
		return Session{}, err
	}
	defer lock.Unlock()
	f, err := s.read(branch, true)
	if err != nil {
		return Session{}, err
	}
	if version != f.Version {
		return Session{}, &StaleError{Current: f.Version, Sent: version}
	}
	if err := op.apply(&f, author, s.now().UTC()); err != nil {
		return Session{}, err
	}
	f.Version++
	f.Notice = ""
	// Without HTML escaping a comment's < > & take one byte, not six; a
	// session whose encoding would still pass the file's cap is refused, so
	// that what is written can always be read back.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return Session{}, err
	}
	data := buf.Bytes()
	if len(data) > maxFile {
		return Session{}, &SizeError{Size: len(data), Max: maxFile}
	}
	if err := fsx.WriteFileAtomic(s.path(branch), data, 0o600); err != nil {
		return Session{}, err
	}
	return f.Session, nil
}

// View is the session as a reader should see it: the viewed marks whose
// file still has the marked content (current maps a changed file's path
// to its hash), and each comment flagged outdated when lineAt says its
// line reads otherwise now (or is gone).
func (s Session) View(current map[string]string, lineAt func(path string, line int) (string, bool)) Session {
	out := s
	out.Viewed = []Mark{}
	for _, m := range s.Viewed {
		if h, ok := current[m.Path]; ok && h != "" && h == m.Hash {
			out.Viewed = append(out.Viewed, m)
		}
	}
	out.Comments = slices.Clone(s.Comments)
	if out.Comments == nil {
		out.Comments = []Comment{}
	}
	for i := range out.Comments {
		c := &out.Comments[i]
		text, ok := lineAt(c.Path, c.Line)
		c.Outdated = !ok || text != c.Text
	}
	return out
}
