package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWhichPathsStayInside(t *testing.T) {
	for _, c := range []struct {
		p            string
		local, clean bool
	}{
		{"a", true, true},
		{"a/b.txt", true, true},
		{"a/../b", true, false},
		{"./a", true, false},
		{"", false, false},
		{"..", false, false},
		{"../a", false, false},
		{"a/../../b", false, false},
		{"/etc/passwd", false, false},
		{`a\..\..\b`, false, false},
	} {
		if got := Local(c.p); got != c.local {
			t.Errorf("Local(%q) = %v, want %v", c.p, got, c.local)
		}
		if got := CleanLocal(c.p); got != c.clean {
			t.Errorf("CleanLocal(%q) = %v, want %v", c.p, got, c.clean)
		}
	}
	for _, c := range []struct {
		dir, f, rel string
		ok          bool
	}{
		{".", "a/b", "a/b", true},
		{"a", "a/b", "b", true},
		{"a", "a", "", false},
		{"a", "ab/c", "", false},
	} {
		if rel, ok := Under(c.dir, c.f); rel != c.rel || ok != c.ok {
			t.Errorf("Under(%q, %q) = %q, %v", c.dir, c.f, rel, ok)
		}
	}
}

func TestReadUnderReadsARegularFileInsideAndBounded(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"a/ok.txt": "12345", "a/big.txt": "123456"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"out": outside, "a/file-link": filepath.Join(root, "a/ok.txt")} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := ReadUnder(root, "a/ok.txt", 5); err != nil || string(data) != "12345" {
		t.Errorf("a/ok.txt: %q, %v", data, err)
	}
	if data, err := ReadUnder(root, "a/../a/ok.txt", 5); err != nil || string(data) != "12345" {
		t.Errorf("a/../a/ok.txt: %q, %v", data, err)
	}
	if _, err := ReadUnder(root, "a/big.txt", 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := ReadUnder(root, "a", 5); !errors.Is(err, os.ErrInvalid) {
		t.Errorf("a directory: %v, want os.ErrInvalid", err)
	}
	if _, err := ReadUnder(root, "a/file-link", 5); !errors.Is(err, os.ErrInvalid) {
		t.Errorf("a symlink: %v, want os.ErrInvalid", err)
	}
	for _, p := range []string{"out/secret", "../" + filepath.Base(outside) + "/secret", "a/missing"} {
		if data, err := ReadUnder(root, p, 5); err == nil {
			t.Errorf("%s: read %q outside the root or from nothing", p, data)
		}
	}
}
