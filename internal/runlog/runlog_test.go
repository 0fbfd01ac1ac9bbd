package runlog

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The end of every run lists the journals to trim without decoding them;
// the list is the one decoding gives, whatever the outputs hold.
func TestJournalsAreListedForTrimmingWithoutDecodingThem(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	var batch []Journal
	for i := range 5 {
		batch = append(batch, Journal{ID: NewID(base.Add(time.Duration(i) * time.Second)), Target: "a:b", Status: StateCached,
			Output: `{"id":"r20260101T000000.000000000Z-00000000"} printed by a test` + "\n"})
	}
	if err := WriteBatch(dir, batch); err != nil {
		t.Fatal(err)
	}
	single := Journal{ID: NewID(base.Add(time.Minute)), Target: "a:b", Status: StateSucceeded, Output: `{"id":"x"}`}
	if err := Write(dir, &single); err != nil {
		t.Fatal(err)
	}
	fast, err := journalIDs(dir)
	decoded, _ := journalEntries(dir)
	if err != nil || len(fast) != 6 || len(decoded) != 6 {
		t.Fatalf("journalIDs found %d (%v), decoding %d", len(fast), err, len(decoded))
	}
	for i := range fast {
		if fast[i].id != decoded[i].id || fast[i].file != decoded[i].file {
			t.Errorf("journal %d: %s in %s, decoding says %s in %s", i, fast[i].id, fast[i].file.name, decoded[i].id, decoded[i].file.name)
		}
	}
	if removed, err := Trim(dir, 6); err != nil || removed != 0 {
		t.Errorf("trimming at the cap removed %d, %v", removed, err)
	}
	if removed, err := Trim(dir, 5); err != nil || removed != 1 {
		t.Errorf("trimming one over the cap removed %d, %v", removed, err)
	}
}

func TestARunIsNamedByItsIdAUniquePrefixOrLast(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	ids := []string{
		"r20261128T103500.000000000Z-1a2b3c4d",
		"r20261128T103501.000000000Z-1a2f0000",
		"r20261128T113000.000000000Z-9e8d7c6b", // the newest
	}
	for _, id := range ids {
		if err := Write(dir, &Journal{ID: id, Target: "a:b", Status: StateSucceeded}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		ref, want string
		err       error
		names     []string // what the error lists
	}{
		{ref: ids[0], want: ids[0]},
		{ref: "last", want: ids[2]},
		{ref: "r20261128T11", want: ids[2]},
		{ref: "1a2b", want: ids[0]},
		{ref: "-9e", want: ids[2]},
		{ref: "r20261128T1035", err: ErrAmbiguous, names: ids[:2]},
		{ref: "1a2", err: ErrAmbiguous, names: ids[:2]},
		{ref: "r2025", err: ErrNotFound},
		{ref: "../../etc/passwd", err: ErrNotFound},
		{ref: "", err: ErrNotFound},
	} {
		got, err := Resolve(dir, c.ref)
		if got != c.want || !errors.Is(err, c.err) {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", c.ref, got, err, c.want, c.err)
			continue
		}
		for _, n := range c.names {
			if !strings.Contains(err.Error(), n) {
				t.Errorf("Resolve(%q): %v does not name %s", c.ref, err, n)
			}
		}
	}
	if _, err := Resolve(t.TempDir(), "last"); !errors.Is(err, ErrNotFound) {
		t.Errorf("last without runs: %v", err)
	}
}

// WriteAll writes each journal whole, readable by its id once it returns.
func TestWriteAllWritesEveryJournalReadableByItsID(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	var js []*Journal
	for _, target := range []string{"a:test", "b:test", "c:test"} {
		js = append(js, &Journal{ID: NewID(now), Target: target, Status: StateSucceeded, Start: now.UTC()})
	}
	if err := WriteAll(dir, js); err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		got, err := Read(dir, j.ID)
		if err != nil || got.Target != j.Target || got.Status != StateSucceeded {
			t.Errorf("%s: %+v %v", j.ID, got, err)
		}
	}
	if err := WriteAll(dir, nil); err != nil {
		t.Errorf("WriteAll of none: %v", err)
	}
}

func TestAListedJournalSaysWhereItsResultCameFrom(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	j := &Journal{ID: NewID(now), Target: "a:build", Status: StateSucceeded, Start: now.UTC(), CacheHit: true, From: "remote", Shard: "2/4"}
	if err := Write(dir, j); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir, 0, "")
	if err != nil || len(list) != 1 || list[0].From != "remote" || list[0].Shard != "2/4" {
		t.Errorf("List = %+v, %v; want from remote, shard 2/4", list, err)
	}
}

// ValidID agrees with the shape's regular expression, which it replaces
// for speed, on ids NewID makes and on every way to spoil one.
func TestValidIDIsTheRunIDShape(t *testing.T) {
	shape := regexp.MustCompile(`^r[0-9]{8}T[0-9]{6}\.[0-9]{9}Z-[0-9a-f]{8}$`)
	good := NewID(time.Now())
	ids := []string{good, "", "r", good + "0", good[:len(good)-1], "../../etc/passwd", strings.ToUpper(good)}
	for i := range good {
		for _, c := range []byte{'r', 'T', '.', 'Z', '-', '0', '9', 'a', 'f', 'g', '/', 0} {
			b := []byte(good)
			b[i] = c
			ids = append(ids, string(b))
		}
	}
	for _, id := range ids {
		if got, want := ValidID(id), shape.MatchString(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func FuzzValidID(f *testing.F) {
	shape := regexp.MustCompile(`^r[0-9]{8}T[0-9]{6}\.[0-9]{9}Z-[0-9a-f]{8}$`)
	f.Add(NewID(time.Now()))
	f.Add("r20060102T150405.000000000Z-0123abcd")
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidID(id), shape.MatchString(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	})
}

// A batch bigger than the trim's read buffer lists every id: a read that
// cuts an id (or the mark before it) in two sees it whole with the next.
func TestABatchReadInPiecesListsEveryID(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	var batch []Journal
	for i := range 3000 { // about 600 KB: ten reads, their ends at every offset of a journal
		batch = append(batch, Journal{ID: NewID(base.Add(time.Duration(i) * time.Millisecond)), Target: "a:b", Status: StateCached,
			Output: strings.Repeat("x", i%97)})
	}
	if err := WriteBatch(dir, batch); err != nil {
		t.Fatal(err)
	}
	fast, err := journalIDs(dir)
	decoded, _ := journalEntries(dir)
	if err != nil || len(fast) != 3000 || len(decoded) != 3000 {
		t.Fatalf("journalIDs found %d (%v), decoding %d", len(fast), err, len(decoded))
	}
	for i := range fast {
		if fast[i].id != decoded[i].id {
			t.Fatalf("journal %d: %s, decoding says %s", i, fast[i].id, decoded[i].id)
		}
	}
}

// TrimOver trims only when the log is over keep+slack, to keep, counting
// the journals of a batch from its name, or by reading a batch written
// before names had counts.
func TestTrimOverTrimsOnlyPastTheSlack(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(Dir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 11, 25, 4, 0, 0, 0, time.UTC)
	batch := func(from, n int) []Journal {
		var js []Journal
		for i := range n {
			js = append(js, Journal{ID: NewID(base.Add(time.Duration(from+i) * time.Second)), Target: "a:b", Status: StateCached})
		}
		return js
	}
	for b := range 3 { // 30 journals in three batches of ten
		if err := WriteBatch(dir, batch(10*b, 10)); err != nil {
			t.Fatal(err)
		}
	}
	// The oldest batch as one written before names had counts.
	files, _ := journalFiles(dir)
	slices.SortFunc(files, func(a, b journalFile) int { return strings.Compare(a.first, b.first) })
	if files[0].count != 10 {
		t.Fatalf("a batch of ten is named %s", files[0].name)
	}
	old := files[0].first + batchSep + files[0].last + ".json"
	if err := os.Rename(filepath.Join(Dir(dir), files[0].name), filepath.Join(Dir(dir), old)); err != nil {
		t.Fatal(err)
	}
	if n := Count(dir); n != 30 {
		t.Fatalf("%d journals listed, want 30", n)
	}
	if removed, err := TrimOver(dir, 20, 10); err != nil || removed != 0 {
		t.Errorf("TrimOver at keep+slack removed %d, %v", removed, err)
	}
	if removed, err := TrimOver(dir, 15, 10); err != nil || removed != 15 {
		t.Errorf("TrimOver past keep+slack removed %d, %v; want 15", removed, err)
	}
	if n := Count(dir); n != 15 {
		t.Errorf("%d journals left, want 15", n)
	}
}

func TestABatchNameWithABadCountIsNoJournal(t *testing.T) {
	id1, id2 := NewID(time.Unix(1, 0)), NewID(time.Unix(2, 0))
	for _, name := range []string{id1 + "--" + id2 + "--0.json", id1 + "--" + id2 + "--1.json", id1 + "--" + id2 + "--07.json", id1 + "--" + id2 + "--x.json", id1 + "--" + id2 + "--.json", id1 + "--" + id2 + "--3--4.json"} {
		if f, ok := parseJournalName(name); ok {
			t.Errorf("%s reads as %+v", name, f)
		}
	}
	if f, ok := parseJournalName(id1 + "--" + id2 + "--12.json"); !ok || f.count != 12 || f.last != id2 {
		t.Errorf("a batch of 12: %+v, %v", f, ok)
	}
}
