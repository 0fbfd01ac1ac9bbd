package reviewstate

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

var alice = Author{Kind: "console", ID: "tok_alice"}

func intp(n int) *int       { return &n }
func strp(s string) *string { return &s }

func apply(t *testing.T, s *Store, op Op) Session {
	t.Helper()
	got, err := s.Apply("feature/x", alice, op)
	if err != nil {
		t.Fatalf("Apply(%+v): %v", op, err)
	}
	return got
}

func TestWritesAreStampedVersionedAndReadBack(t *testing.T) {
	dir := t.TempDir()
	s := NewStore(dir)
	got := apply(t, s, Op{Version: intp(0), Op: OpComment, Path: "api/a.go", Line: 3, Text: strp("\treturn a"), Body: "looks off"})
	if got.Version != 1 || len(got.Comments) != 1 || got.Comments[0].ID != "c1" || got.Comments[0].Author != alice {
		t.Fatalf("after a comment: %+v", got)
	}
	got = apply(t, s, Op{IfMatch: `"1"`, Op: OpView, Path: "api/a.go", Hash: "abc"})
	got = apply(t, s, Op{Version: intp(2), Op: OpCursor, Path: "api/a.go", Line: 3})
	got = apply(t, s, Op{Version: intp(3), Op: OpResolve, ID: "c1"})
	if got.Version != 4 || !got.Comments[0].Resolved || *got.Comments[0].ResolvedBy != alice || got.Cursor.Line != 3 || len(got.Viewed) != 1 {
		t.Fatalf("after four writes: %+v", got)
	}
	// A new store (a restarted server) reads the same.
	again, err := NewStore(dir).Load("feature/x")
	if err != nil || again.Version != 4 || len(again.Comments) != 1 {
		t.Fatalf("reloaded: %+v, %v", again, err)
	}
	st, err := os.Stat(s.path("feature/x"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("state file mode: %v %v", st, err)
	}
	// Branches are apart.
	if other, _ := s.Load("main"); other.Version != 0 || len(other.Comments) != 0 {
		t.Errorf("another branch sees this one's state: %+v", other)
	}
	// Ids are never reused.
	apply(t, s, Op{Version: intp(4), Op: OpDelete, ID: "c1"})
	got = apply(t, s, Op{Version: intp(5), Op: OpComment, Path: "api/a.go", Line: 1, Text: strp(""), Body: "again"})
	if got.Comments[0].ID != "c2" {
		t.Errorf("a new comment after a delete has id %s, want c2", got.Comments[0].ID)
	}
}

func TestAStaleWriteIsRefusedWithTheCurrentVersion(t *testing.T) {
	s := NewStore(t.TempDir())
	apply(t, s, Op{Version: intp(0), Op: OpCursor, Path: "a", Line: 1})
	_, err := s.Apply("feature/x", alice, Op{Version: intp(0), Op: OpCursor, Path: "a", Line: 2})
	var stale *StaleError
	if !errors.As(err, &stale) || stale.Current != 1 || stale.Sent != 0 || !strings.Contains(err.Error(), "version 1, you sent 0") {
		t.Fatalf("err = %v", err)
	}
}

func TestConcurrentWritersNeverLoseAnUpdate(t *testing.T) {
	dir := t.TempDir()
	const writers, each = 4, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := NewStore(dir) // a store each, as two servers would have
			for done := 0; done < each; {
				cur, err := s.Load("b")
				if err != nil {
					t.Error(err)
					return
				}
				_, err = s.Apply("b", Author{Kind: "console", ID: string(rune('a' + w))}, Op{Version: intp(cur.Version), Op: OpComment, Path: "f", Line: 1, Text: strp("x"), Body: "hi"})
				var stale *StaleError
				switch {
				case errors.As(err, &stale):
					continue // read again, as a client would
				case err != nil:
					t.Error(err)
					return
				}
				done++
			}
		}()
	}
	wg.Wait()
	final, _ := NewStore(dir).Load("b")
	if final.Version != writers*each || len(final.Comments) != writers*each {
		t.Errorf("version %d with %d comments, want %d of each", final.Version, len(final.Comments), writers*each)
	}
}

func TestBadWritesAreRefusedNamingTheProblem(t *testing.T) {
	s := NewStore(t.TempDir())
	cases := []struct {
		name string
		op   Op
		want string
	}{
		{"no version", Op{Op: OpCursor, Path: "a", Line: 1}, "version is required"},
		{"version and If-Match disagree", Op{Version: intp(1), IfMatch: `"2"`, Op: OpCursor, Path: "a", Line: 1}, "disagree"},
		{"If-Match that is not a version", Op{IfMatch: `"abc"`, Op: OpCursor, Path: "a", Line: 1}, "If-Match"},
		{"a payload naming an author", Op{Version: intp(0), Op: OpComment, Path: "a", Line: 1, Text: strp(""), Body: "x", Author: json.RawMessage(`{"kind":"admin"}`)}, "authorship is decided by the route"},
		{"resolved_by in the payload", Op{Version: intp(0), Op: OpResolve, ID: "c1", ResolvedBy: json.RawMessage(`"me"`)}, "authorship"},
		{"an unknown op", Op{Version: intp(0), Op: "merge"}, `op "merge" is unknown`},
		{"no op", Op{Version: intp(0)}, "op is required"},
		{"a path with ..", Op{Version: intp(0), Op: OpCursor, Path: "../etc/passwd", Line: 1}, "clean slash path"},
		{"an absolute path", Op{Version: intp(0), Op: OpCursor, Path: "/etc/passwd", Line: 1}, "clean slash path"},
		{"line 0", Op{Version: intp(0), Op: OpCursor, Path: "a", Line: 0}, "line must be 1 or more"},
		{"a blank comment", Op{Version: intp(0), Op: OpComment, Path: "a", Line: 1, Text: strp(""), Body: "  "}, "must not be blank"},
		{"a comment over the size", Op{Version: intp(0), Op: OpComment, Path: "a", Line: 1, Text: strp(""), Body: strings.Repeat("x", MaxBody+1)}, "at most 8192"},
		{"a line text over the size", Op{Version: intp(0), Op: OpComment, Path: "a", Line: 1, Text: strp(strings.Repeat("x", MaxText+1)), Body: "x"}, "at most 1000"},
		{"a comment without its line's text", Op{Version: intp(0), Op: OpComment, Path: "a", Line: 1, Body: "x"}, "text is required"},
		{"view without a hash", Op{Version: intp(0), Op: OpView, Path: "a"}, "hash is required"},
		{"resolve an unknown comment", Op{Version: intp(0), Op: OpResolve, ID: "c9"}, `no comment "c9"`},
	}
	for _, c := range cases {
		_, err := s.Apply("b", alice, c.op)
		var in *InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want an InputError containing %q", c.name, err, c.want)
		}
	}
}

func TestCommentsAreBoundedPerBranch(t *testing.T) {
	s := NewStore(t.TempDir())
	f := file{Session: Session{Branch: "b", Version: 5, Viewed: []Mark{}}, NextID: MaxComments + 1}
	for i := range MaxComments {
		f.Comments = append(f.Comments, Comment{ID: "c" + string(rune(i))})
	}
	data, _ := json.Marshal(f)
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.path("b"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := s.Apply("b", alice, Op{Version: intp(5), Op: OpComment, Path: "a", Line: 1, Text: strp(""), Body: "one more"})
	if !errors.As(err, &TooManyError{}) || !strings.Contains(err.Error(), "delete or resolve some") {
		t.Errorf("err = %v", err)
	}
}

func TestACorruptFileIsSetAsideAndSaidSo(t *testing.T) {
	s := NewStore(t.TempDir())
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.path("b"), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("b")
	if err != nil || got.Version != 0 || !strings.Contains(got.Notice, ".corrupt") {
		t.Fatalf("load = %+v, %v", got, err)
	}
	if _, err := os.Stat(s.path("b") + ".corrupt"); err != nil {
		t.Errorf("the corrupt file was not kept aside: %v", err)
	}
	if _, err := s.Apply("b", alice, Op{Version: intp(0), Op: OpCursor, Path: "a", Line: 1}); err != nil {
		t.Errorf("a write after recovery: %v", err)
	}
}

func TestViewDropsMarksOfChangedFilesAndFlagsOutdatedComments(t *testing.T) {
	s := NewStore(t.TempDir())
	apply(t, s, Op{Version: intp(0), Op: OpView, Path: "a.go", Hash: "h1"})
	apply(t, s, Op{Version: intp(1), Op: OpView, Path: "b.go", Hash: "h2"})
	apply(t, s, Op{Version: intp(2), Op: OpComment, Path: "a.go", Line: 2, Text: strp("x := 1"), Body: "why"})
	got := apply(t, s, Op{Version: intp(3), Op: OpComment, Path: "a.go", Line: 3, Text: strp("y := 2"), Body: "and this"})
	lines := map[int]string{2: "x := 1", 3: "y := 3"}
	v := got.View(map[string]string{"a.go": "h1", "b.go": "h2-changed"}, func(p string, n int) (string, bool) {
		l, ok := lines[n]
		return l, ok && p == "a.go"
	})
	if len(v.Viewed) != 1 || v.Viewed[0].Path != "a.go" {
		t.Errorf("viewed = %+v, want only a.go", v.Viewed)
	}
	if v.Comments[0].Outdated || !v.Comments[1].Outdated {
		t.Errorf("outdated flags = %v, %v; want false, true", v.Comments[0].Outdated, v.Comments[1].Outdated)
	}
	if len(got.Viewed) != 2 {
		t.Error("View changed the session it was given")
	}
}

func FuzzApply(f *testing.F) {
	f.Add(`{"version":0,"op":"comment","path":"a.go","line":1,"text":"x","body":"y"}`, "")
	f.Add(`{"op":"view","path":"a/../b","hash":"h"}`, `"0"`)
	f.Add(`{"version":0,"op":"resolve","id":"c1","author":{}}`, "")
	s := NewStore(f.TempDir())
	f.Fuzz(func(t *testing.T, body, ifMatch string) {
		var op Op
		if json.Unmarshal([]byte(body), &op) != nil {
			return
		}
		op.IfMatch = ifMatch
		cur, err := s.Load("b")
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Apply("b", alice, op)
		var in *InputError
		var stale *StaleError
		switch {
		case err == nil:
			if got.Version != cur.Version+1 {
				t.Fatalf("version %d after %d", got.Version, cur.Version)
			}
		case errors.As(err, &in), errors.As(err, &stale), errors.As(err, &TooManyError{}):
		default:
			t.Fatalf("an error of no known kind: %v", err)
		}
	})
}

func TestAWriteThatWouldOutgrowTheFileIsRefused(t *testing.T) {
	old := maxFile
	maxFile = 4096
	t.Cleanup(func() { maxFile = old })
	st := NewStore(t.TempDir())
	text := "x"
	body := strings.Repeat("<&> ", 500) // 2000 bytes, not HTML-escaped
	var err error
	for v := 0; v < 5 && err == nil; v++ {
		vv := v
		_, err = st.Apply("main", Author{Kind: "console", ID: "tok_a"}, Op{Version: &vv, Op: OpComment, Path: "a.go", Line: 1, Text: &text, Body: body})
	}
	var se *SizeError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a SizeError", err)
	}
	s, err := st.Load("main")
	if err != nil || len(s.Comments) == 0 {
		t.Fatalf("what was written before reads back: %v %+v", err, s)
	}
}

func TestADotIsNotAPath(t *testing.T) {
	st := NewStore(t.TempDir())
	v := 0
	for _, p := range []string{".", "a/./b", "a//b"} {
		if _, err := st.Apply("main", Author{Kind: "console", ID: "t"}, Op{Version: &v, Op: OpCursor, Path: p, Line: 1}); err == nil {
			t.Errorf("path %q was accepted", p)
		}
	}
}

// FuzzOp: whatever a client sends as POST /api/v1/diff/session's body, its
// strict decode and the checks answer without a panic, and an op that
// passes them names no author.
func FuzzOp(f *testing.F) {
	f.Add([]byte(`{"version":0,"op":"comment","path":"a.go","line":3,"text":"x","body":"why?"}`))
	f.Add([]byte(`{"version":1,"op":"view","path":"a.go","hash":"abc"}`))
	f.Add([]byte(`{"op":"resolve","id":"c1","author":{"kind":"console","id":"x"}}`))
	f.Add([]byte(`{"version":-1,"op":"cursor","path":"../x","line":0}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.DisallowUnknownFields()
		var op Op
		if dec.Decode(&op) != nil {
			return
		}
		if _, err := op.version(); err != nil {
			return
		}
		if op.validate() == nil && (op.Author != nil || op.By != nil || op.ResolvedBy != nil) {
			t.Fatalf("an op naming an author passed: %s", data)
		}
	})
}
