package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "secret.json")
	if err := WriteFileAtomic(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("content = %q, %v; want two", b, err)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func TestLockFileSerialisesWriters(t *testing.T) {
	dir := t.TempDir()
	lockPath := filepath.Join(dir, "x.lock")
	counterPath := filepath.Join(dir, "counter")
	if err := os.WriteFile(counterPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := LockFile(lockPath)
			if err != nil {
				t.Error(err)
				return
			}
			// A read-modify-write through the file system: the race
			// detector cannot see flock, so the shared state lives on disk.
			b, _ := os.ReadFile(counterPath)
			_ = WriteFileAtomic(counterPath, append(b, 'x'), 0o600)
			_ = l.Unlock()
		}()
	}
	wg.Wait()
	if b, _ := os.ReadFile(counterPath); len(b) != 20 {
		t.Fatalf("counter = %d, want 20 (a write was lost)", len(b))
	}
}

func TestEnsureCacheDirIgnoresItself(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".core")
	if err := EnsureCacheDir(dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || len(b) == 0 {
		t.Fatalf(".gitignore missing: %v", err)
	}
}

func TestReadSizedReadsTheFileWhateverSizeWasSeen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	content := []byte("package x\n\nfunc F() {}\n")
	if err := os.WriteFile(p, content, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, seen := range []int64{int64(len(content)), 0, 3, int64(len(content)) + 5, -1} {
		got, err := ReadSized(p, seen)
		if err != nil || string(got) != string(content) {
			t.Errorf("size seen %d: got %q, %v", seen, got, err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadSized(empty, 0); err != nil || len(got) != 0 {
		t.Errorf("empty file: got %q, %v", got, err)
	}
	if _, err := ReadSized(filepath.Join(dir, "missing"), 3); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want a not-exist error", err)
	}
	var pe *os.PathError
	if _, err := ReadSized(dir, 4096); !errors.As(err, &pe) {
		t.Errorf("a directory: %v, want a *PathError", err)
	}
}

func TestBatchReplacesEveryFileAtOnce(t *testing.T) {
	dir := t.TempDir()
	paths := []string{filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")}
	if err := os.WriteFile(paths[0], []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewBatch(0o600)
	var wg sync.WaitGroup
	for _, p := range paths {
		wg.Go(func() {
			if err := b.Write(p, []byte("new "+filepath.Base(p))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, _ := os.ReadFile(paths[0]); string(got) != "old" {
		t.Errorf("before Commit, a = %q; want the old content", got)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		got, err := os.ReadFile(p)
		if err != nil || string(got) != "new "+filepath.Base(p) {
			t.Errorf("%s = %q, %v", p, got, err)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", p, st.Mode().Perm())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(paths) {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func TestABatchWithAFailedWriteTouchesNoFile(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	if err := os.WriteFile(a, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := NewBatch(0o600)
	if err := b.Write(a, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := b.Write(filepath.Join(dir, "missing", "b"), []byte("x")); err == nil {
		t.Fatal("a write into a missing directory succeeded")
	}
	if err := b.Commit(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Commit = %v; want the failed write's error", err)
	}
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Errorf("a = %q after a failed batch; want old", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
}

func TestReadAtMostReadsUpToItsLimitAndRefusesMore(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadAtMost(p, 5); err != nil || string(got) != "12345" {
		t.Errorf("at the limit: %q, %v", got, err)
	}
	if _, err := ReadAtMost(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := ReadAtMost(filepath.Join(t.TempDir(), "none"), 4); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestSyncTakesFilesInPlaceAndRefusesAMissingOne(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "sub", "b")
	if err := os.MkdirAll(filepath.Dir(b), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{a, b} {
		if err := ReplaceFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := Sync(); err != nil {
		t.Errorf("Sync of nothing: %v", err)
	}
	if err := Sync(a, b); err != nil {
		t.Errorf("Sync: %v", err)
	}
	if err := Sync(filepath.Join(t.TempDir(), "gone", "c")); err == nil {
		t.Error("Sync of a file in a missing directory succeeded")
	}
}
