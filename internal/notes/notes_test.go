package notes

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cache", "notes.json")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

func TestCRUD(t *testing.T) {
	s, path := openStore(t)
	clock := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }

	a, err := s.Put("", "api:build", "flaky on CI")
	if err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(time.Minute)
	b, err := s.Put("", "web:test", "owned by the web team")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a created note has an id and both times", func(t *testing.T) {
		if len(a.ID) != 16 || a.ID == b.ID || a.NodeID != "api:build" || a.Text != "flaky on CI" || a.Created.IsZero() || !a.Updated.Equal(a.Created) {
			t.Errorf("note = %+v", a)
		}
	})

	t.Run("list returns every note, oldest first, or one node's", func(t *testing.T) {
		all, err := s.List("")
		if err != nil || len(all) != 2 || all[0].ID != a.ID || all[1].ID != b.ID {
			t.Errorf("all = %+v, %v", all, err)
		}
		one, _ := s.List("web:test")
		if len(one) != 1 || one[0].ID != b.ID {
			t.Errorf("web:test = %+v", one)
		}
		none, _ := s.List("nowhere")
		if none == nil || len(none) != 0 {
			t.Errorf("nowhere = %#v, want an empty list", none)
		}
	})

	t.Run("put with an id replaces the text and bumps updated", func(t *testing.T) {
		clock = clock.Add(time.Minute)
		got, err := s.Put(a.ID, "api:build", "fixed in #12")
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != "fixed in #12" || !got.Created.Equal(a.Created) || !got.Updated.After(a.Updated) {
			t.Errorf("updated = %+v", got)
		}
		one, _ := s.List("api:build")
		if len(one) != 1 || one[0].Text != "fixed in #12" {
			t.Errorf("after update = %+v", one)
		}
	})

	t.Run("a reopened store reads the same notes", func(t *testing.T) {
		again, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := again.List("")
		if len(all) != 2 || all[0].Text != "fixed in #12" {
			t.Errorf("all = %+v", all)
		}
	})

	t.Run("delete removes a note", func(t *testing.T) {
		if err := s.Delete(b.ID); err != nil {
			t.Fatal(err)
		}
		all, _ := s.List("")
		if len(all) != 1 || all[0].ID != a.ID {
			t.Errorf("all = %+v", all)
		}
	})

	t.Run("the file is private", func(t *testing.T) {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("stat = %v, %v", st, err)
		}
	})
}

func TestValidation(t *testing.T) {
	s, _ := openStore(t)
	n, err := s.Put("", "api:build", "x")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, id, node, text string
		want                 error
		mention              string
	}{
		{"an empty node id is invalid", "", "", "x", ErrInvalid, "node id is empty"},
		{"empty text is invalid", "", "api:build", "", ErrInvalid, "text is empty"},
		{"blank text is invalid", "", "api:build", " \n\t", ErrInvalid, "text is empty"},
		{"text over 64 KiB is invalid", "", "api:build", strings.Repeat("a", MaxText+1), ErrInvalid, "at most 65536"},
		{"text of exactly 64 KiB is fine", "", "api:build", strings.Repeat("a", MaxText), nil, ""},
		{"text that is not UTF-8 is invalid", "", "api:build", "\xff", ErrInvalid, "UTF-8"},
		{"an unknown id is not found", "feedfacefeedface", "api:build", "x", ErrNotFound, "feedfacefeedface"},
		{"an id on another node is refused", n.ID, "web:test", "x", ErrInvalid, "delete it and create"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Put(tt.id, tt.node, tt.text)
			if tt.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("err = %v, want %v mentioning %q", err, tt.want, tt.mention)
			}
		})
	}
	t.Run("deleting an unknown id is not found", func(t *testing.T) {
		if err := s.Delete("nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCorruptFile(t *testing.T) {
	t.Run("a corrupt file is an error naming it", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "notes.json")
		if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestConcurrentWritersLoseNothing(t *testing.T) {
	s, path := openStore(t)
	other, err := Open(path) // another process's view of the same file
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		st := s
		if i%2 == 1 {
			st = other
		}
		go func() {
			defer wg.Done()
			if _, err := st.Put("", "n", "t"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	all, _ := s.List("n")
	if len(all) != 20 {
		t.Errorf("%d notes, want 20", len(all))
	}
}
