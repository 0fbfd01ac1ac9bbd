package runlog

import (
	"os"
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
