package attention

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func open(t *testing.T) (*Queue, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "attention.json")
	q, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return q, path
}

func TestADisposeReleasesTheWaitingAgentWithTheReason(t *testing.T) {
	q, _ := open(t)
	r, err := q.Create("agent1", Ask{Need: "may I delete libs/old?", Node: "project:old"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Request, 1)
	go func() {
		w, _ := q.Wait(context.Background(), r.ID)
		got <- w
	}()
	if _, err := q.Dispose(r.ID, "yes, it is unused", "console1"); err != nil {
		t.Fatal(err)
	}
	w := <-got
	if w.State != StateDisposed || w.Reason != "yes, it is unused" || w.DisposedBy != "console1" || w.Closed == nil {
		t.Fatalf("wait returned %+v", w)
	}
}

func TestTheQueueSurvivesARestart(t *testing.T) {
	q, path := open(t)
	r, _ := q.Create("agent1", Ask{Need: "review this"})
	q2, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := q2.Get(r.ID)
	if !ok || got.State != StateOpen || got.Need != "review this" {
		t.Fatalf("after reopen: %+v %v", got, ok)
	}
	if _, err := q2.Dispose(r.ID, "done", "p"); err != nil {
		t.Fatal(err)
	}
}

func TestDisposeRefusesBadInput(t *testing.T) {
	q, _ := open(t)
	r, _ := q.Create("agent1", Ask{Need: "x"})
	for _, tc := range []struct {
		name, id, reason string
		want             error
	}{
		{"an unknown id is not found", "att-nope", "ok", ErrNotFound},
		{"an empty reason is invalid", r.ID, "  ", ErrInvalid},
		{"an oversized reason is invalid", r.ID, strings.Repeat("x", MaxReason+1), ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := q.Dispose(tc.id, tc.reason, "p"); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := q.Dispose(r.ID, "ok", "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Dispose(r.ID, "again", "p"); !errors.Is(err, ErrClosed) {
		t.Fatalf("a second dispose: %v", err)
	}
}

func TestAWaitThatTimesOutLeavesTheRequestOpen(t *testing.T) {
	q, _ := open(t)
	r, _ := q.Create("agent1", Ask{Need: "x"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	w, err := q.Wait(ctx, r.ID)
	if err != nil || w.State != StateOpen {
		t.Fatalf("got %+v %v", w, err)
	}
}

func TestListShowsOpenRequestsFirst(t *testing.T) {
	q, _ := open(t)
	a, _ := q.Create("agent1", Ask{Need: "a"})
	b, _ := q.Create("agent1", Ask{Need: "b"})
	c, _ := q.Create("agent1", Ask{Need: "c"})
	_, _ = q.Dispose(a.ID, "ok", "p")
	l := q.List()
	var ids []string
	for _, r := range l.Requests {
		ids = append(ids, r.ID)
	}
	if l.Open != 2 || strings.Join(ids, ",") != b.ID+","+c.ID+","+a.ID {
		t.Fatalf("list %v open %d", ids, l.Open)
	}
}

func TestCreateRefusesAnEmptyNeedAndAFullQueue(t *testing.T) {
	q, _ := open(t)
	if _, err := q.Create("a", Ask{Need: " "}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty need: %v", err)
	}
	for i := 0; i < MaxOpen; i++ {
		if _, err := q.Create("a", Ask{Need: "n"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.Create("a", Ask{Need: "n"}); !errors.Is(err, ErrFull) {
		t.Fatalf("full queue: %v", err)
	}
}

func TestACorruptFileIsMovedAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "attention.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	q, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := q.List(); len(l.Requests) != 0 {
		t.Fatalf("queue not empty: %+v", l)
	}
	m, _ := filepath.Glob(path + ".corrupt-*")
	if len(m) != 1 {
		t.Fatalf("no file aside: %v", m)
	}
}

// FuzzOpen: whatever bytes the queue file holds, Open either loads it or
// moves it aside; the queue then works.
func FuzzOpen(f *testing.F) {
	f.Add([]byte(`{"version":1,"requests":[{"id":"att-1","state":"open","need":"x","agent":"a","created":"2026-11-24T10:00:00Z"}]}`))
	f.Add([]byte(`{"requests":[{"id":"att-1","state":"bogus"}]}`))
	f.Add([]byte(`[]`))
	f.Add([]byte{0xff, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "attention.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		q, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = q.List()
		r, err := q.Create("agent", Ask{Need: "n"})
		if err != nil {
			return // a full queue from the file is fine
		}
		if _, err := q.Dispose(r.ID, "ok", "p"); err != nil {
			t.Fatalf("dispose of a fresh request: %v", err)
		}
	})
}

// A queue written by a core whose agents could withdraw their requests may
// hold withdrawn ones: they stay in the record, closed.
func TestARequestWithdrawnUnderAnOlderCoreStaysClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "attention.json")
	old := `{"version":1,"requests":[{"agent":"tok_a","created":"2026-01-01T00:00:00Z","closed":"2026-01-01T00:01:00Z","id":"att-000000000001","need":"x","state":"withdrawn"}]}`
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	q, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l := q.List(); l.Open != 0 || len(l.Requests) != 1 || l.Requests[0].State != StateWithdrawn {
		t.Errorf("the queue is %+v", l)
	}
	if _, err := q.Dispose("att-000000000001", "late", "p"); !errors.Is(err, ErrClosed) {
		t.Errorf("dispose of a withdrawn request: %v, want ErrClosed", err)
	}
}
