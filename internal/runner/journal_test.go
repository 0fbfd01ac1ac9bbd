package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/execx"
)

func writeTestJournal(t *testing.T, cacheDir string, j Journal) {
	t.Helper()
	if err := os.MkdirAll(runsDir(cacheDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := writeJournal(cacheDir, &j); err != nil {
		t.Fatal(err)
	}
}

func TestJournals(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []string
	for i := range 5 {
		start := base.Add(time.Duration(i) * time.Second)
		target := "a:build"
		if i%2 == 1 {
			target = "b:test"
		}
		j := Journal{ID: newRunID(start), Target: target, Argv: []string{"x"}, Status: StateSucceeded, Start: start, End: start, Output: "out"}
		writeTestJournal(t, dir, j)
		ids = append(ids, j.ID)
	}
	t.Run("ids sort by start time", func(t *testing.T) {
		for i := 1; i < len(ids); i++ {
			if ids[i-1] >= ids[i] {
				t.Errorf("%s >= %s", ids[i-1], ids[i])
			}
		}
	})
	t.Run("listing is newest first without output", func(t *testing.T) {
		js, err := ListJournals(dir, 0, "")
		if err != nil || len(js) != 5 {
			t.Fatalf("ListJournals = %d, %v", len(js), err)
		}
		if js[0].ID != ids[4] || js[4].ID != ids[0] {
			t.Errorf("order: first %s last %s", js[0].ID, js[4].ID)
		}
		for _, j := range js {
			if j.Output != "" {
				t.Errorf("%s listed with its output", j.ID)
			}
		}
	})
	t.Run("listing honours the limit and the target", func(t *testing.T) {
		js, _ := ListJournals(dir, 2, "a:build")
		if len(js) != 2 || js[0].ID != ids[4] || js[1].ID != ids[2] {
			t.Errorf("got %v", js)
		}
	})
	t.Run("reading returns the output", func(t *testing.T) {
		j, err := ReadJournal(dir, ids[0])
		if err != nil || j.Output != "out" || j.Target != "a:build" {
			t.Errorf("ReadJournal = %+v, %v", j, err)
		}
	})
	t.Run("an unknown id is ErrNotFound", func(t *testing.T) {
		_, err := ReadJournal(dir, newRunID(time.Now()))
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("ids that could climb out of the runs directory are ErrNotFound", func(t *testing.T) {
		for _, id := range []string{"../config", "..", "r/../../x", "", "r20250102T030405.000000000Z-0000000g", ids[0] + "/.."} {
			if _, err := ReadJournal(dir, id); !errors.Is(err, ErrNotFound) {
				t.Errorf("ReadJournal(%q) = %v", id, err)
			}
		}
	})
	t.Run("a torn journal is skipped by the listing", func(t *testing.T) {
		torn := newRunID(base.Add(time.Hour))
		if err := os.WriteFile(filepath.Join(runsDir(dir), torn+".json"), []byte(`{"id":`), 0o644); err != nil {
			t.Fatal(err)
		}
		js, err := ListJournals(dir, 0, "")
		if err != nil || len(js) != 5 {
			t.Errorf("ListJournals = %d, %v", len(js), err)
		}
		os.Remove(filepath.Join(runsDir(dir), torn+".json"))
	})
	t.Run("trimming keeps the newest", func(t *testing.T) {
		removed, err := TrimJournals(dir, 2)
		if err != nil || removed != 3 {
			t.Fatalf("TrimJournals = %d, %v", removed, err)
		}
		js, _ := ListJournals(dir, 0, "")
		if len(js) != 2 || js[0].ID != ids[4] || js[1].ID != ids[3] {
			t.Errorf("left %v", js)
		}
		if removed, _ := TrimJournals(dir, 10); removed != 0 {
			t.Errorf("trimming under the cap removed %d", removed)
		}
		if _, err := TrimJournals(dir, -1); err == nil {
			t.Error("a negative keep is accepted")
		}
	})
	t.Run("a missing cache directory lists nothing", func(t *testing.T) {
		js, err := ListJournals(filepath.Join(dir, "nope"), 0, "")
		if err != nil || len(js) != 0 {
			t.Errorf("ListJournals = %v, %v", js, err)
		}
	})
}

func TestRecoverInterrupted(t *testing.T) {
	dir := t.TempDir()
	// A pid that is gone: a process that has exited and been reaped.
	cmd := exec.Command("/bin/true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := cmd.Process.Pid
	now := time.Now()
	dead := Journal{ID: newRunID(now), Target: "a:dead", Status: StateRunning, Start: now, PID: deadPID, PIDStart: 1}
	live := Journal{ID: newRunID(now.Add(time.Millisecond)), Target: "a:live", Status: StateRunning, Start: now, PID: os.Getpid(), PIDStart: selfStart()}
	reused := Journal{ID: newRunID(now.Add(2 * time.Millisecond)), Target: "a:reused", Status: StateRunning, Start: now, PID: os.Getpid(), PIDStart: selfStart() + 12345}
	done := Journal{ID: newRunID(now.Add(3 * time.Millisecond)), Target: "a:done", Status: StateSucceeded, Start: now, End: now, PID: deadPID}
	for _, j := range []Journal{dead, live, reused, done} {
		writeTestJournal(t, dir, j)
	}
	n, err := RecoverInterrupted(dir)
	if err != nil {
		t.Fatal(err)
	}
	status := func(id string) Journal {
		j, err := ReadJournal(dir, id)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	t.Run("a running journal of a dead process becomes interrupted", func(t *testing.T) {
		j := status(dead.ID)
		if j.Status != StateInterrupted || j.End.IsZero() || !strings.Contains(j.Err, "pid") {
			t.Errorf("journal = %+v", j)
		}
	})
	t.Run("a running journal of a live process is left alone", func(t *testing.T) {
		if j := status(live.ID); j.Status != StateRunning {
			t.Errorf("status %s", j.Status)
		}
	})
	t.Run("a reused pid with another start time counts as dead", func(t *testing.T) {
		if selfStart() == 0 {
			t.Skip("no /proc start times here")
		}
		if j := status(reused.ID); j.Status != StateInterrupted {
			t.Errorf("status %s", j.Status)
		}
	})
	t.Run("finished journals are left alone", func(t *testing.T) {
		if j := status(done.ID); j.Status != StateSucceeded {
			t.Errorf("status %s", j.Status)
		}
	})
	t.Run("it counts what it changed", func(t *testing.T) {
		want := 2
		if selfStart() == 0 {
			want = 1
		}
		if n != want {
			t.Errorf("recovered %d, want %d", n, want)
		}
		if again, _ := RecoverInterrupted(dir); again != 0 {
			t.Errorf("a second pass recovered %d", again)
		}
	})
}

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	t.Run("output under the cap is kept whole", func(t *testing.T) {
		c := &execx.Capture{Max: OutputCap}
		c.Write([]byte("hello\n"))
		if out, tr := c.Result(); out != "hello\n" || tr {
			t.Errorf("result = %q, %v", out, tr)
		}
	})
	t.Run("output over the cap keeps the first and last halves", func(t *testing.T) {
		c := &execx.Capture{Max: OutputCap}
		chunk := strings.Repeat("a", 1000) + "\n"
		for range 3000 { // about 3 MB
			c.Write([]byte(chunk))
		}
		c.Write([]byte("THE END\n"))
		out, tr := c.Result()
		if !tr {
			t.Error("not marked truncated")
		}
		if !strings.HasSuffix(out, "THE END\n") || !strings.HasPrefix(out, "aaa") {
			t.Errorf("head or tail lost: %q ... %q", out[:10], out[len(out)-10:])
		}
		if len(out) > OutputCap+100 {
			t.Errorf("kept %d bytes, cap is %d", len(out), OutputCap)
		}
		if !strings.Contains(out, "bytes of output left out") {
			t.Error("no marker where output was left out")
		}
	})
	t.Run("one huge write keeps its end", func(t *testing.T) {
		c := &execx.Capture{Max: OutputCap}
		big := strings.Repeat("x", 3*OutputCap) + "END"
		c.Write([]byte(big))
		out, _ := c.Result()
		if !strings.HasSuffix(out, "xEND") {
			t.Errorf("tail %q", out[len(out)-10:])
		}
	})
}

func TestLiveOutputIsPrefixedPerLine(t *testing.T) {
	var buf syncBuffer
	lw := &lockedWriter{w: &buf}
	c := &execx.Capture{Max: OutputCap, Live: &prefixWriter{out: lw, prefix: []byte("[a:b] ")}}
	c.Write([]byte("one\ntw"))
	c.Write([]byte("o\nthree"))
	c.Result()
	if got := buf.String(); got != "[a:b] one\n[a:b] two\n[a:b] three\n" {
		t.Errorf("live output = %q", got)
	}
}

func TestCacheHitJournalsShareOneFile(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	r := f.runner(Options{})
	first := f.runWith(r, "api:build", "gen:stamp")
	second := f.runWith(r, "api:build", "gen:stamp")
	files, err := os.ReadDir(runsDir(f.cacheDir()))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the hits of one run are one file", func(t *testing.T) {
		batches := 0
		for _, jf := range files {
			if strings.Contains(jf.Name(), "--") { // <first id>--<last id>.json
				batches++
			}
		}
		if len(files) != 4 || batches != 1 {
			t.Errorf("%d files, %d batches; want 3 singles and 1 batch", len(files), batches)
		}
	})
	t.Run("each hit reads back by its id", func(t *testing.T) {
		for id, r := range second {
			j, err := ReadJournal(f.cacheDir(), r.RunID)
			if err != nil || j.Target != id || !j.CacheHit || j.Status != StateCached {
				t.Errorf("%s: %+v, %v", id, j, err)
			}
		}
	})
	t.Run("listing interleaves singles and hits newest first", func(t *testing.T) {
		js, err := ListJournals(f.cacheDir(), 0, "")
		if err != nil || len(js) != 6 {
			t.Fatalf("ListJournals = %d, %v", len(js), err)
		}
		for i := 1; i < len(js); i++ {
			if js[i-1].ID <= js[i].ID {
				t.Errorf("not newest first at %d: %s, %s", i, js[i-1].ID, js[i].ID)
			}
		}
		only, _ := ListJournals(f.cacheDir(), 0, "util:build")
		if len(only) != 2 || only[0].ID != second["util:build"].RunID || only[1].ID != first["util:build"].RunID {
			t.Errorf("util:build journals = %+v", only)
		}
	})
	t.Run("trimming into a batch keeps its newest hits", func(t *testing.T) {
		removed, err := TrimJournals(f.cacheDir(), 2)
		if err != nil || removed != 4 {
			t.Fatalf("TrimJournals = %d, %v", removed, err)
		}
		js, _ := ListJournals(f.cacheDir(), 0, "")
		if len(js) != 2 {
			t.Fatalf("%d journals left", len(js))
		}
		for _, j := range js {
			full, err := ReadJournal(f.cacheDir(), j.ID)
			if err != nil || !full.CacheHit {
				t.Errorf("%s: %+v, %v", j.ID, full, err)
			}
		}
	})
}

func TestTheListingReportsARunOfADeadCoreAsInterrupted(t *testing.T) {
	dir := t.TempDir()
	gone := exec.Command("/bin/true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for i, tc := range []struct {
		name, status string
		pid          int
		pidStart     uint64
		want         string
	}{
		{"a running journal of a dead core process is interrupted", StateRunning, gone.Process.Pid, 0, StateInterrupted},
		{"a queued journal of a dead core process is interrupted", StateQueued, gone.Process.Pid, 0, StateInterrupted},
		{"a running journal of a live core process is running", StateRunning, os.Getpid(), selfStart(), StateRunning},
		{"a finished journal of a dead core process keeps its status", StateSucceeded, gone.Process.Pid, 0, StateSucceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := Journal{ID: newRunID(now.Add(time.Duration(i) * time.Millisecond)), Target: "a:" + strconv.Itoa(i), Status: tc.status, Start: now, PID: tc.pid, PIDStart: tc.pidStart}
			writeTestJournal(t, dir, j)
			listed, err := ListJournals(dir, 0, j.Target)
			if err != nil || len(listed) != 1 || listed[0].Status != tc.want {
				t.Errorf("ListJournals: %+v, %v; want status %s", listed, err, tc.want)
			}
			read, err := ReadJournal(dir, j.ID)
			if err != nil || read.Status != tc.want {
				t.Errorf("ReadJournal: %+v, %v; want status %s", read, err, tc.want)
			}
			if tc.want == StateInterrupted && (read.ExitCode != -1 || !strings.Contains(read.Err, strconv.Itoa(tc.pid))) {
				t.Errorf("an interrupted run reads %+v, want exit code -1 and the dead pid in its error", read)
			}
		})
	}
	t.Run("reading writes nothing: the next server still finds the crashed runs", func(t *testing.T) {
		if n, err := RecoverInterrupted(dir); n != 2 || err != nil {
			t.Errorf("RecoverInterrupted = %d, %v; want 2", n, err)
		}
	})
}
