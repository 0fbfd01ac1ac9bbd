package fsx

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
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
