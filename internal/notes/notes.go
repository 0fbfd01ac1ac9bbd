// Package notes keeps a person's notes on graph nodes, served by the notes
// service (core.notes.v1alpha1.NotesService), in <cache>/notes.json.
//
// The file is small and rewritten whole on every change: atomically (temp
// file, fsync, rename; mode 0600) under an advisory lock (notes.json.lock),
// so the server and the CLI can both write without losing each other's
// changes. Every operation reads the file afresh; nothing is cached.
//
// Decisions the spec leaves open, taken here:
//   - IDs are 16 random hex digits.
//   - Text must be valid UTF-8, not blank, at most MaxText bytes; a node id
//     must be non-empty, valid UTF-8, at most MaxNodeID bytes. Validation
//     errors match ErrInvalid.
//   - Put with an id replaces the note's text; the node id must still be
//     given and must be the note's own (moving a note is a delete and a
//     create).
//   - List is sorted by creation time, then id.
package notes

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/quote"
)

// Limits.
const (
	MaxText   = 64 << 10 // bytes of a note's text
	MaxNodeID = 1024     // bytes of a node id
)

// ErrNotFound is matched (errors.Is) by the error for an unknown note id.
var ErrNotFound = errors.New("note not found")

// ErrInvalid is matched (errors.Is) by validation errors.
var ErrInvalid = errors.New("invalid note")

// Note is a person's note on a graph node.
type Note struct {
	ID      string    `json:"id"`
	NodeID  string    `json:"node_id"`
	Text    string    `json:"text"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
}

type file struct {
	Version int    `json:"version"`
	Notes   []Note `json:"notes"`
}

const fileVersion = 1

// Store is the notes file. Its methods are safe for concurrent use, within
// and across processes.
type Store struct {
	doc fsx.Document[file]
	now func() time.Time
}

// maxFile bounds what is read of the notes file: a thousand notes of the
// longest text.
const maxFile = 1000 * MaxText

// Open returns the store at path (the cache's notes.json), creating its
// directory if needed. A missing file is an empty store; a corrupt one is an
// error naming the file.
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open notes: %w", err)
	}
	s := &Store{now: time.Now, doc: fsx.Document[file]{
		Path: path, Name: "notes file", Limit: maxFile, Fix: "repair or delete it",
		Zero: func() file { return file{Version: fileVersion} },
		Check: func(f *file) error {
			if f.Version != fileVersion {
				return fmt.Errorf("has version %d, this core reads version %d", f.Version, fileVersion)
			}
			return nil
		},
	}}
	if _, err := s.read(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Store) read() (file, error) { return s.doc.Read() }

// update runs fn on the file under the lock and writes the result.
func (s *Store) update(fn func(*file) error) error {
	return s.doc.Update(func(f *file) (bool, error) {
		if err := fn(f); err != nil {
			return false, err
		}
		return true, nil
	})
}

// List returns the notes on nodeID, or every note when nodeID is "".
func (s *Store) List(nodeID string) ([]Note, error) {
	f, err := s.read()
	if err != nil {
		return nil, err
	}
	out := []Note{}
	for _, n := range f.Notes {
		if nodeID == "" || n.NodeID == nodeID {
			out = append(out, n)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Created.Equal(out[j].Created) {
			return out[i].Created.Before(out[j].Created)
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Put creates a note on nodeID (id "") or replaces the text of note id, and
// returns the note as stored.
func (s *Store) Put(id, nodeID, text string) (Note, error) {
	if err := validate(nodeID, text); err != nil {
		return Note{}, err
	}
	var out Note
	err := s.update(func(f *file) error {
		now := s.now().UTC().Round(0)
		if id == "" {
			nid, err := newID()
			if err != nil {
				return err
			}
			out = Note{ID: nid, NodeID: nodeID, Text: text, Created: now, Updated: now}
			f.Notes = append(f.Notes, out)
			return nil
		}
		for i := range f.Notes {
			n := &f.Notes[i]
			if n.ID != id {
				continue
			}
			if n.NodeID != nodeID {
				return fmt.Errorf("%w: note %s is on node %s, not %s (to move it, delete it and create a new one)", ErrInvalid, quote.Short(id), quote.Short(n.NodeID), quote.Short(nodeID))
			}
			n.Text, n.Updated = text, now
			out = *n
			return nil
		}
		return fmt.Errorf("%w: no note %s", ErrNotFound, quote.Short(id))
	})
	if err != nil {
		return Note{}, err
	}
	return out, nil
}

// Delete removes note id.
func (s *Store) Delete(id string) error {
	return s.update(func(f *file) error {
		for i, n := range f.Notes {
			if n.ID == id {
				f.Notes = append(f.Notes[:i], f.Notes[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("%w: no note %s", ErrNotFound, quote.Short(id))
	})
}

func validate(nodeID, text string) error {
	switch {
	case nodeID == "":
		return fmt.Errorf("%w: node id is empty: name the graph node the note is on", ErrInvalid)
	case len(nodeID) > MaxNodeID:
		return fmt.Errorf("%w: node id is %d bytes, at most %d", ErrInvalid, len(nodeID), MaxNodeID)
	case !utf8.ValidString(nodeID):
		return fmt.Errorf("%w: node id is not valid UTF-8", ErrInvalid)
	case strings.TrimSpace(text) == "":
		return fmt.Errorf("%w: text is empty: to remove a note, delete it", ErrInvalid)
	case len(text) > MaxText:
		return fmt.Errorf("%w: text is %d bytes, at most %d (64 KiB)", ErrInvalid, len(text), MaxText)
	case !utf8.ValidString(text):
		return fmt.Errorf("%w: text is not valid UTF-8", ErrInvalid)
	}
	return nil
}

func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("note id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
