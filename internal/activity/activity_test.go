package activity

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func open(t *testing.T, path string, cap int) *Store {
	t.Helper()
	s, err := Open(path, cap)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// lines decodes every line of the trail file, failing on any that does not.
func lines(t *testing.T, path string) []Entry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q does not decode: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func messages(es []Entry) string {
	var m []string
	for _, e := range es {
		m = append(m, e.Message)
	}
	return strings.Join(m, ",")
}

func TestAddAndList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "activity.jsonl")
	s := open(t, path, 0)
	s.Add(KindRun, "m1", "api:build")
	s.Add(KindJob, "m2", "")
	s.Add(KindRun, "m3", "api:test")
	s.Add(KindError, "m4", "")

	t.Run("list is newest first", func(t *testing.T) {
		if got := messages(s.List(0, "")); got != "m4,m3,m2,m1" {
			t.Errorf("list = %s", got)
		}
	})
	t.Run("list filters by kind and limits", func(t *testing.T) {
		if got := messages(s.List(0, KindRun)); got != "m3,m1" {
			t.Errorf("runs = %s", got)
		}
		if got := messages(s.List(2, "")); got != "m4,m3" {
			t.Errorf("limit 2 = %s", got)
		}
		if got := s.List(5, KindGraph); got == nil || len(got) != 0 {
			t.Errorf("graph = %#v, want an empty list", got)
		}
	})
	t.Run("ids increase and are unique", func(t *testing.T) {
		var prev int64
		for _, e := range lines(t, path) {
			id, err := strconv.ParseInt(e.ID, 10, 64)
			if err != nil || id <= prev {
				t.Errorf("id %q after %d", e.ID, prev)
			}
			prev = id
		}
	})
	t.Run("the file is private and holds every entry", func(t *testing.T) {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v", st.Mode().Perm())
		}
		if got := lines(t, path); len(got) != 4 || got[0].Subject != "api:build" || got[0].Kind != KindRun {
			t.Errorf("file = %+v", got)
		}
		if s.Len() != 4 || s.Err() != nil {
			t.Errorf("len = %d, err = %v", s.Len(), s.Err())
		}
	})
	t.Run("a reopened trail lists the same entries", func(t *testing.T) {
		again := open(t, path, 0)
		if got := messages(again.List(0, "")); got != "m4,m3,m2,m1" {
			t.Errorf("list = %s", got)
		}
		e := again.Add(KindGraph, "m5", "")
		last := s.List(1, "")[0]
		a, _ := strconv.ParseInt(e.ID, 10, 64)
		b, _ := strconv.ParseInt(last.ID, 10, 64)
		if a <= b {
			t.Errorf("id %s after reopen is not above %s", e.ID, last.ID)
		}
	})
	t.Run("a long message is clipped", func(t *testing.T) {
		e := s.Add(KindError, strings.Repeat("é", MaxMessage), "")
		if len(e.Message) > MaxMessage || !strings.HasSuffix(e.Message, "…") {
			t.Errorf("message of %d bytes", len(e.Message))
		}
	})
}

func TestConcurrentAdds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "activity.jsonl")
	s := open(t, path, 50)
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Add(KindRun, "x", "")
			_ = s.List(10, "")
		}()
	}
	wg.Wait()
	if got := len(lines(t, path)); got != 40 {
		t.Errorf("file has %d entries, want 40", got)
	}
}

func TestTornLine(t *testing.T) {
	t.Run("a torn last line is skipped and the next entry starts a line of its own", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "activity.jsonl")
		s := open(t, path, 0)
		s.Add(KindRun, "a", "")
		s.Add(KindRun, "b", "")
		_ = s.Close()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.WriteString(`{"id":"99999999999999999","time":"20`)
		_ = f.Close()

		s2 := open(t, path, 0)
		if got := messages(s2.List(0, "")); got != "b,a" {
			t.Errorf("list = %s", got)
		}
		if s2.Skipped() != 1 || s2.Len() != 2 {
			t.Errorf("skipped = %d, len = %d", s2.Skipped(), s2.Len())
		}
		s2.Add(KindRun, "c", "")
		if got := messages(lines(t, path)); got != "a,b,c" {
			t.Errorf("file = %s", got)
		}
	})

	t.Run("a file that is one torn line opens empty", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "activity.jsonl")
		if err := os.WriteFile(path, []byte(`{"id":"1","ki`), 0o600); err != nil {
			t.Fatal(err)
		}
		s := open(t, path, 0)
		if s.Len() != 0 || s.Skipped() != 1 {
			t.Errorf("len = %d, skipped = %d", s.Len(), s.Skipped())
		}
		s.Add(KindJob, "first", "")
		if got := messages(lines(t, path)); got != "first" {
			t.Errorf("file = %s", got)
		}
	})

	t.Run("a corrupt line in the middle is skipped", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "activity.jsonl")
		data := `{"id":"1","kind":"run","message":"a"}` + "\n" + "garbage\n" + `{"id":"2","kind":"run","message":"b"}` + "\n"
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		s := open(t, path, 0)
		if got := messages(s.List(0, "")); got != "b,a" || s.Skipped() != 1 {
			t.Errorf("list = %s, skipped = %d", got, s.Skipped())
		}
	})
}

func TestTrim(t *testing.T) {
	path := filepath.Join(t.TempDir(), "activity.jsonl")
	s := open(t, path, 5)
	for i := 1; i <= 12; i++ {
		s.Add(KindRun, "m"+strconv.Itoa(i), "")
	}

	t.Run("memory keeps the newest cap entries while the file grows", func(t *testing.T) {
		if got := messages(s.List(0, "")); got != "m12,m11,m10,m9,m8" {
			t.Errorf("list = %s", got)
		}
		if s.Len() != 12 {
			t.Errorf("len = %d, want 12", s.Len())
		}
	})

	t.Run("trim keeps the newest cap entries in the file", func(t *testing.T) {
		removed, err := s.Trim()
		if err != nil || removed != 7 {
			t.Fatalf("removed %d, err %v; want 7", removed, err)
		}
		if got := messages(lines(t, path)); got != "m8,m9,m10,m11,m12" {
			t.Errorf("file = %s", got)
		}
		if s.Len() != 5 {
			t.Errorf("len = %d, want 5", s.Len())
		}
		st, _ := os.Stat(path)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v", st.Mode().Perm())
		}
	})

	t.Run("entries added after a trim land in the new file", func(t *testing.T) {
		s.Add(KindRun, "m13", "")
		if got := messages(lines(t, path)); got != "m8,m9,m10,m11,m12,m13" {
			t.Errorf("file = %s", got)
		}
	})

	t.Run("a trim with nothing to remove removes nothing", func(t *testing.T) {
		small := open(t, filepath.Join(t.TempDir(), "a.jsonl"), 5)
		small.Add(KindRun, "only", "")
		if removed, err := small.Trim(); removed != 0 || err != nil {
			t.Errorf("removed %d, err %v", removed, err)
		}
	})

	t.Run("another process's store keeps appending to the trimmed file", func(t *testing.T) {
		other := open(t, path, 5) // as the CLI would
		s.Add(KindRun, "m14", "")
		if _, err := s.Trim(); err != nil {
			t.Fatal(err)
		}
		other.Add(KindJob, "from-cli", "")
		if got := messages(lines(t, path)); got != "m10,m11,m12,m13,m14,from-cli" {
			t.Errorf("file = %s", got)
		}
		if removed, err := s.Trim(); err != nil || removed != 1 {
			t.Errorf("removed %d, err %v; want 1", removed, err)
		}
		if got := messages(s.List(0, "")); got != "from-cli,m14,m13,m12,m11" {
			t.Errorf("list after trim = %s", got)
		}
	})
}

// AddAll files several entries as that many Adds would: in order, each
// its own line with its own increasing id, read back after a reopen.
func TestAddAllFilesEveryEntryInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "activity.jsonl")
	s := open(t, path, 0)
	s.Add(KindRun, "m1", "")
	got := s.AddAll([]Draft{{KindRun, "m2", "a:test"}, {KindRun, "m3", "b:test"}, {KindRun, "m4", "c:test"}})
	if len(got) != 3 || got[0].Subject != "a:test" || got[2].Message != "m4" {
		t.Fatalf("AddAll = %+v", got)
	}
	if n := len(s.AddAll(nil)); n != 0 {
		t.Errorf("AddAll of none filed %d", n)
	}
	if m := messages(s.List(0, "")); m != "m4,m3,m2,m1" {
		t.Errorf("list = %s", m)
	}
	var prev int64
	for _, e := range lines(t, path) {
		id, err := strconv.ParseInt(e.ID, 10, 64)
		if err != nil || id <= prev {
			t.Errorf("id %q after %d", e.ID, prev)
		}
		prev = id
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if m := messages(open(t, path, 0).List(0, "")); m != "m4,m3,m2,m1" {
		t.Errorf("after a reopen, list = %s", m)
	}
}
