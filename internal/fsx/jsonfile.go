package fsx

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"
)

// LoadJSON decodes the JSON file at path, at most limit bytes, into v: the
// one rule for a store that must start even when its file is damaged. A
// missing file leaves v as it is. A file that does not decode, or is over
// the limit, is moved aside to <path>.corrupt-<UTC time> (the bytes stay
// for a person to look at) and its new name is returned; v is left as it
// is, so the store starts empty. Any other error is returned.
func LoadJSON(path string, limit int64, v any) (aside string, err error) {
	data, err := ReadAtMost(path, limit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", nil
	case err != nil && !errors.Is(err, ErrTooLarge):
		return "", err
	}
	if err == nil {
		if err = json.Unmarshal(data, v); err == nil {
			return "", nil
		}
		// Unmarshal may have filled part of v before it failed.
		reflect.ValueOf(v).Elem().SetZero()
	}
	aside = path + ".corrupt-" + time.Now().UTC().Format("20060102T150405.000")
	if rerr := os.Rename(path, aside); rerr != nil {
		return "", fmt.Errorf("%s is unreadable (%v) and cannot be moved aside: %w", path, err, rerr)
	}
	return aside, nil
}

// SaveJSON writes v as indented JSON to path atomically (WriteFileAtomic,
// mode 0600): the other half of LoadJSON.
func SaveJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(data, '\n'), 0o600)
}

// Document is a small JSON file that processes share: the one home of its
// read (bounded), its change under a lock (<path>.lock) and its atomic
// replace (SaveJSON). The notes, the check-review job's state and the
// trust records are Documents; a store kept in one process's memory
// uses LoadJSON and SaveJSON alone.
type Document[T any] struct {
	Path string
	// Name says what the file is, in errors ("notes file").
	Name string
	// Limit is the most bytes read; a bigger file is damaged.
	Limit int64
	// Zero is the document of a missing file; nil is T's zero value.
	Zero func() T
	// Check judges a decoded document (its version, say); its error is
	// why the file cannot be used.
	Check func(*T) error
	// Aside moves a damaged file aside (LoadJSON's rule) and starts
	// from Zero; without it a damaged file is an error that names it
	// and says Fix.
	Aside bool
	Fix   string
}

// Read is the document as the file holds it now.
func (d Document[T]) Read() (T, error) {
	fresh := func() T {
		var v T
		if d.Zero != nil {
			v = d.Zero()
		}
		return v
	}
	v := fresh()
	if d.Aside {
		if _, err := LoadJSON(d.Path, d.Limit, &v); err != nil {
			return fresh(), fmt.Errorf("%s: %w", d.Name, err)
		}
		if d.Check != nil && d.Check(&v) != nil {
			return fresh(), nil
		}
		return v, nil
	}
	data, err := ReadAtMost(d.Path, d.Limit)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return v, nil
	case errors.Is(err, ErrTooLarge):
		return fresh(), fmt.Errorf("%s %s is over %d bytes: %s", d.Name, d.Path, d.Limit, d.Fix)
	case err != nil:
		return fresh(), fmt.Errorf("read the %s: %w", d.Name, err)
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return fresh(), fmt.Errorf("%s %s is corrupt (%v): %s", d.Name, d.Path, err, d.Fix)
	}
	if d.Check != nil {
		if err := d.Check(&v); err != nil {
			return fresh(), fmt.Errorf("%s %s %v: %s", d.Name, d.Path, err, d.Fix)
		}
	}
	return v, nil
}

// Update runs fn on the document under the file's lock and writes it when
// fn says it changed it, even when fn also fails part-way (fn's error is
// returned after the write).
func (d Document[T]) Update(fn func(*T) (changed bool, err error)) error {
	if err := os.MkdirAll(filepath.Dir(d.Path), 0o700); err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	lock, err := LockFile(d.Path + ".lock")
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name, err)
	}
	defer func() { _ = lock.Unlock() }()
	v, err := d.Read()
	if err != nil {
		return err
	}
	changed, ferr := fn(&v)
	if changed {
		if err := SaveJSON(d.Path, v); err != nil {
			return fmt.Errorf("write the %s: %w", d.Name, err)
		}
	}
	return ferr
}
