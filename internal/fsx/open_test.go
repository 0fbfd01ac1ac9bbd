package fsx

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFileReadsWhatOsReadFileReads(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"empty":  nil,
		"small":  []byte("hello\n"),
		"large":  bytes.Repeat([]byte("0123456789abcdef"), 70_000), // past any first read
		"exact":  bytes.Repeat([]byte("x"), 512),
		"binary": {0, 1, 2, 255},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s: %d bytes, %v; want %d bytes", name, len(got), err, len(data))
		}
	}
}

func TestAMissingFileIsNotExistNamingItsPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing")
	for name, call := range map[string]func() error{
		"Open":     func() error { _, err := Open(p); return err },
		"ReadFile": func() error { _, err := ReadFile(p); return err },
		"ReadDir":  func() error { _, err := ReadDir(p); return err },
	} {
		err := call()
		var pe *fs.PathError
		if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v; want a *fs.PathError for %s that is fs.ErrNotExist", name, err, p)
		}
	}
}

func TestReadDirSortsByNameAsOsReadDirDoes(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b", "a", "C", "a.txt", "z"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadDir(dir)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name() != want[i].Name() || got[i].IsDir() != want[i].IsDir() {
			t.Errorf("entry %d: %s (dir %v), want %s (dir %v)", i, got[i].Name(), got[i].IsDir(), want[i].Name(), want[i].IsDir())
		}
	}
}
