package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// waitFor polls cond until it holds or a generous deadline passes; the
// machine is shared and noisy, so tests never assert on durations.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func quick(name string) Job {
	return Job{Name: name, Run: func(context.Context) (string, error) { return "ok", nil }}
}

func TestSubmitCoalesces(t *testing.T) {
	t.Run("100 concurrent submits of an in-flight job run it once", func(t *testing.T) {
		release := make(chan struct{})
		var runs atomic.Int32
		m := NewManager(nil)
		m.Register(Job{Name: "sync-graph", Unit: "nodes", Run: func(context.Context) (string, error) {
			runs.Add(1)
			<-release
			return "synced", nil
		}})
		var started atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := 0; i < 100; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				snap, ok, err := m.Submit("jobs/sync-graph", TriggerRequest)
				if err != nil {
					t.Error(err)
					return
				}
				if snap.State != StateRunning {
					t.Errorf("state after submit = %q, want running", snap.State)
				}
				if ok {
					started.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		close(release)
		snap := m.Wait("jobs/sync-graph")
		if got := runs.Load(); got != 1 {
			t.Errorf("Run executed %d times, want 1", got)
		}
		if got := started.Load(); got != 1 {
			t.Errorf("%d submits reported started, want 1", got)
		}
		if snap.State != StateIdle || snap.LastRun == nil || snap.LastRun.Result != ResultSucceeded || snap.LastRun.Message != "synced" {
			t.Errorf("snapshot after the run = %+v (last run %+v)", snap, snap.LastRun)
		}
	})

	t.Run("a submit after the run ended starts a new run", func(t *testing.T) {
		var runs atomic.Int32
		m := NewManager(nil)
		m.Register(Job{Name: "clear-cache", Run: func(context.Context) (string, error) {
			runs.Add(1)
			return "", nil
		}})
		for i := 1; i <= 3; i++ {
			_, started, err := m.Submit("jobs/clear-cache", "")
			if err != nil || !started {
				t.Fatalf("submit %d: started=%v err=%v", i, started, err)
			}
			m.Wait("jobs/clear-cache")
		}
		if got := runs.Load(); got != 3 {
			t.Errorf("runs = %d, want 3", got)
		}
	})
}

func TestSubmitErrors(t *testing.T) {
	m := NewManager(nil)
	m.Register(quick("sync-graph"))
	m.Register(quick("rotate-logs"))

	t.Run("an unknown job is ErrNotFound listing the registered jobs", func(t *testing.T) {
		_, _, err := m.Submit("jobs/nope", TriggerRequest)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
		if !strings.Contains(err.Error(), "jobs/rotate-logs, jobs/sync-graph") {
			t.Errorf("message %q does not list the registered jobs", err)
		}
		if _, err := m.Get("jobs/nope"); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get: err = %v, want ErrNotFound", err)
		}
	})

	t.Run("a bare job name is refused with the resource form to write", func(t *testing.T) {
		_, _, err := m.Submit("sync-graph", TriggerRequest)
		if !errors.Is(err, ErrInvalidName) || !strings.Contains(err.Error(), `"jobs/sync-graph"`) {
			t.Errorf("err = %v, want ErrInvalidName suggesting jobs/sync-graph", err)
		}
	})

	t.Run("an unknown trigger is refused", func(t *testing.T) {
		if _, _, err := m.Submit("jobs/sync-graph", "cron"); !errors.Is(err, ErrInvalidName) {
			t.Errorf("err = %v, want ErrInvalidName", err)
		}
	})

	t.Run("a duplicate registration panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("no panic")
			}
		}()
		m.Register(quick("sync-graph"))
	})
}

func TestRunOutcome(t *testing.T) {
	var events []string
	var mu sync.Mutex
	m := NewManager(func(s Snapshot, r *Run) {
		mu.Lock()
		defer mu.Unlock()
		if r == nil {
			events = append(events, s.Name+" "+s.State)
		} else {
			events = append(events, s.Name+" "+s.State+" "+r.Result+" "+r.Message)
		}
	})
	m.Register(Job{Name: "fails", Run: func(context.Context) (string, error) {
		return "removed 2", errors.New("disk full")
	}})
	m.Register(Job{Name: "panics", Run: func(context.Context) (string, error) { panic("boom") }})
	m.Register(Job{Name: "sized", Unit: "entries", Holder: HolderSession, Description: "d",
		Run: quick("x").Run, Size: func() int64 { return 42 }})

	t.Run("an error fails the run and keeps the job's message", func(t *testing.T) {
		_, _, _ = m.Submit("jobs/fails", TriggerRequest)
		r := m.Wait("jobs/fails").LastRun
		if r == nil || r.Result != ResultFailed || r.Message != "removed 2: disk full" || r.Trigger != TriggerRequest {
			t.Errorf("last run = %+v", r)
		}
		if r != nil && r.End.Before(r.Start) {
			t.Errorf("end %v before start %v", r.End, r.Start)
		}
	})

	t.Run("a panic fails the run instead of crashing", func(t *testing.T) {
		_, _, _ = m.Submit("jobs/panics", TriggerRequest)
		r := m.Wait("jobs/panics").LastRun
		if r == nil || r.Result != ResultFailed || !strings.Contains(r.Message, "boom") {
			t.Errorf("last run = %+v", r)
		}
	})

	t.Run("onEvent sees start then finish", func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		want := []string{
			"jobs/fails running",
			"jobs/fails idle failed removed 2: disk full",
			"jobs/panics running",
		}
		if len(events) != 4 || strings.Join(events[:3], "|") != strings.Join(want, "|") {
			t.Errorf("events = %q", events)
		}
	})

	t.Run("list is sorted and carries holder, unit and size", func(t *testing.T) {
		l := m.List()
		if len(l) != 3 || l[0].Name != "jobs/fails" || l[1].Name != "jobs/panics" || l[2].Name != "jobs/sized" {
			t.Fatalf("list = %+v", l)
		}
		s := l[2]
		if s.Holder != HolderSession || s.Unit != "entries" || s.Size != 42 || s.Description != "d" || s.LastRun != nil || s.State != StateIdle {
			t.Errorf("sized = %+v", s)
		}
		if l[0].Holder != HolderServer {
			t.Errorf("default holder = %q, want server", l[0].Holder)
		}
	})
}

func TestShutdown(t *testing.T) {
	t.Run("shutdown cancels running jobs and waits for them", func(t *testing.T) {
		m := NewManager(nil)
		running := make(chan struct{})
		var finished atomic.Bool
		m.Register(Job{Name: "long", Run: func(ctx context.Context) (string, error) {
			close(running)
			<-ctx.Done()
			finished.Store(true)
			return "", ctx.Err()
		}})
		_, _, _ = m.Submit("jobs/long", TriggerRequest)
		<-running
		if err := m.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !finished.Load() {
			t.Error("Shutdown returned before the job did")
		}
		if _, _, err := m.Submit("jobs/long", TriggerRequest); !errors.Is(err, ErrClosed) {
			t.Errorf("submit after shutdown: err = %v, want ErrClosed", err)
		}
	})

	t.Run("shutdown gives up when its context ends", func(t *testing.T) {
		m := NewManager(nil)
		release := make(chan struct{})
		defer close(release)
		m.Register(Job{Name: "stubborn", Run: func(context.Context) (string, error) {
			<-release
			return "", nil
		}})
		_, _, _ = m.Submit("jobs/stubborn", TriggerRequest)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := m.Shutdown(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}

// fakeClock is a settable clock for the scheduler tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestSchedule(t *testing.T) {
	clock := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	m := NewManager(nil)
	m.now = clock.now
	var ticks atomic.Int64
	m.tickHook = func() { ticks.Add(1) }
	var hourly, never atomic.Int32
	m.Register(Job{Name: "hourly", Every: time.Hour, Run: func(context.Context) (string, error) {
		hourly.Add(1)
		return "", nil
	}})
	m.Register(Job{Name: "never", Run: func(context.Context) (string, error) {
		never.Add(1)
		return "", nil
	}})
	var idle atomic.Bool
	var idleAsked atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		m.Schedule(ctx, func() bool { idleAsked.Add(1); return idle.Load() }, time.Millisecond)
		close(stopped)
	}()
	defer func() {
		cancel()
		<-stopped
	}()
	// waitTicks waits for n more complete scheduler ticks.
	waitTicks := func(n int64) {
		t.Helper()
		target := ticks.Load() + n
		waitFor(t, "scheduler ticks", func() bool { return ticks.Load() >= target })
	}

	t.Run("a job is not run before it is due even when idle", func(t *testing.T) {
		idle.Store(true)
		waitTicks(5)
		if hourly.Load() != 0 {
			t.Errorf("hourly ran %d times before it was due", hourly.Load())
		}
	})

	t.Run("a due job waits while the server is busy", func(t *testing.T) {
		idle.Store(false)
		clock.advance(time.Hour)
		asked := idleAsked.Load()
		waitTicks(5)
		if hourly.Load() != 0 {
			t.Errorf("hourly ran %d times while busy", hourly.Load())
		}
		if idleAsked.Load() == asked {
			t.Error("idle() was never asked about the due job")
		}
	})

	t.Run("a due job runs once the server is idle, with trigger schedule", func(t *testing.T) {
		idle.Store(true)
		waitFor(t, "the scheduled run", func() bool { return hourly.Load() == 1 })
		snap := m.Wait("jobs/hourly")
		if snap.LastRun == nil || snap.LastRun.Trigger != TriggerSchedule {
			t.Errorf("last run = %+v, want trigger schedule", snap.LastRun)
		}
	})

	t.Run("it is not due again until Every after its last run", func(t *testing.T) {
		waitTicks(5)
		if hourly.Load() != 1 {
			t.Errorf("hourly ran %d times, want 1", hourly.Load())
		}
		clock.advance(time.Hour)
		waitFor(t, "the second scheduled run", func() bool { return hourly.Load() == 2 })
	})

	t.Run("a job without Every is never scheduled", func(t *testing.T) {
		clock.advance(1000 * time.Hour)
		waitTicks(5)
		if never.Load() != 0 {
			t.Errorf("never ran %d times", never.Load())
		}
	})
}

func TestPersist(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cache", "jobs.json")

	first := NewManager(nil)
	first.Register(Job{Name: "rotate-logs", Run: func(context.Context) (string, error) { return "removed 12 journals", nil }})
	if err := first.Persist(path); err != nil {
		t.Fatal(err)
	}
	_, _, _ = first.Submit("jobs/rotate-logs", TriggerRequest)
	want := first.Wait("jobs/rotate-logs").LastRun
	if err := first.Err(); err != nil {
		t.Fatal(err)
	}

	t.Run("the history file is private", func(t *testing.T) {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", st.Mode().Perm())
		}
	})

	t.Run("a restarted manager shows the last run of before", func(t *testing.T) {
		second := NewManager(nil)
		// Persist before Register works as well as after.
		if err := second.Persist(path); err != nil {
			t.Fatal(err)
		}
		second.Register(quick("rotate-logs"))
		got, err := second.Get("jobs/rotate-logs")
		if err != nil {
			t.Fatal(err)
		}
		if got.LastRun == nil || got.LastRun.Message != want.Message || !got.LastRun.Start.Equal(want.Start) ||
			!got.LastRun.End.Equal(want.End) || got.LastRun.Result != want.Result || got.LastRun.Trigger != want.Trigger {
			t.Errorf("last run after restart = %+v, want %+v", got.LastRun, want)
		}
	})

	t.Run("a corrupt history is reported and replaced after the next run", func(t *testing.T) {
		if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
		third := NewManager(nil)
		third.Register(quick("rotate-logs"))
		if err := third.Persist(path); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("err = %v, want a corrupt-file error", err)
		}
		_, _, _ = third.Submit("jobs/rotate-logs", TriggerRequest)
		third.Wait("jobs/rotate-logs")
		fourth := NewManager(nil)
		fourth.Register(quick("rotate-logs"))
		if err := fourth.Persist(path); err != nil {
			t.Fatal(err)
		}
		if s, _ := fourth.Get("jobs/rotate-logs"); s.LastRun == nil || s.LastRun.Message != "ok" {
			t.Errorf("last run = %+v, want the run after the corruption", s.LastRun)
		}
	})
}
