package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/corehq/core/internal/workspace"
)

func TestFailurePropagation(t *testing.T) {
	f := newFixture(t, `projects:
  a:
    path: a
    targets:
      lib:
        run: [/bin/sh, -c, "echo broken; exit 2"]
      mid:
        run: [/bin/sh, -c, "touch ran-mid"]
        deps: [lib]
      top:
        run: [/bin/sh, -c, "touch ran-top"]
        deps: [mid]
      other:
        run: [/bin/sh, -c, "touch ran-other"]
`, map[string]string{"a/x": "x"})
	var log eventLog
	res, err := f.runner(Options{Observer: Events(log.add)}).Run(context.Background(), f.ws(), []string{"a:top", "a:other"})
	if err != nil {
		t.Fatal(err)
	}
	got := byTarget(res)
	t.Run("the failing target reports its exit code", func(t *testing.T) {
		if r := got["a:lib"]; r.Status != StateFailed || r.ExitCode != 2 || r.RunID == "" {
			t.Errorf("a:lib = %+v", r)
		}
		j, err := ReadJournal(f.cacheDir(), got["a:lib"].RunID)
		if err != nil || j.Status != StateFailed || j.ExitCode != 2 || j.Output != "broken\n" {
			t.Errorf("journal = %+v, %v", j, err)
		}
	})
	t.Run("every dependent fails without running", func(t *testing.T) {
		for _, id := range []string{"a:mid", "a:top"} {
			r := got[id]
			if r.Status != StateFailed || r.RunID != "" {
				t.Errorf("%s = %+v, want failed without a run", id, r)
			}
		}
		if r := got["a:mid"]; r.Err != "dependency a:lib failed" {
			t.Errorf("a:mid err = %q", r.Err)
		}
		if r := got["a:top"]; r.Err != "dependency a:mid failed" {
			t.Errorf("a:top err = %q", r.Err)
		}
		for _, file := range []string{"a/ran-mid", "a/ran-top"} {
			if _, ok := f.read(file); ok {
				t.Errorf("%s exists: a dependent of a failed target ran", file)
			}
		}
		if s := log.states("a:top"); s != "queued,failed" {
			t.Errorf("a:top events = %s", s)
		}
	})
	t.Run("independent targets still run", func(t *testing.T) {
		if r := got["a:other"]; r.Status != StateSucceeded {
			t.Errorf("a:other = %+v", r)
		}
	})
	t.Run("the result is failed", func(t *testing.T) {
		if !res.Failed() {
			t.Error("Failed() = false")
		}
	})
}

func TestDependencyOrder(t *testing.T) {
	// A diamond plus a chain: each target appends its name to a shared log
	// when it starts and again when it ends.
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      base:
        run: [/bin/sh, -c, "echo start $0 >> ../log; echo end $0 >> ../log", base]
      left:
        run: [/bin/sh, -c, "echo start $0 >> ../log; echo end $0 >> ../log", left]
        deps: [base]
      right:
        run: [/bin/sh, -c, "echo start $0 >> ../log; echo end $0 >> ../log", right]
        deps: [base]
      top:
        run: [/bin/sh, -c, "echo start $0 >> ../log; echo end $0 >> ../log", top]
        deps: [left, right]
`, map[string]string{"p/x": "x"})
	res, err := f.runner(Options{Capacity: 4}).Run(context.Background(), f.ws(), []string{"p:top"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the result lists dependencies first, ties by id", func(t *testing.T) {
		var ids []string
		for _, r := range res.Targets {
			ids = append(ids, r.Target)
		}
		if want := []string{"p:base", "p:left", "p:right", "p:top"}; !slices.Equal(ids, want) {
			t.Errorf("order = %v, want %v", ids, want)
		}
	})
	t.Run("each target starts after its dependencies ended", func(t *testing.T) {
		data, _ := f.read("log")
		lines := strings.Split(strings.TrimSpace(data), "\n")
		pos := map[string]int{}
		for i, l := range lines {
			pos[l] = i
		}
		deps := map[string][]string{"left": {"base"}, "right": {"base"}, "top": {"left", "right"}}
		for tg, ds := range deps {
			for _, d := range ds {
				if pos["end "+d] > pos["start "+tg] {
					t.Errorf("%s started before %s ended: %q", tg, d, lines)
				}
			}
		}
		if len(lines) != 8 {
			t.Errorf("log has %d lines, want 8 (each target once): %q", len(lines), lines)
		}
	})
}

func TestArgvRunsWithoutAShell(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: sub/p
    targets:
      echo:
        run: [/bin/echo, "$HOME", "a b", "*"]
      pwd:
        run: [/bin/pwd]
`, map[string]string{"sub/p/x": "x"})
	var out syncBuffer
	f.runWith(f.runner(Options{Output: &out, Capacity: 1}), "p:echo", "p:pwd")
	got := out.String()
	if !strings.Contains(got, "[p:echo] $HOME a b *\n") {
		t.Errorf("output %q: argv was not passed literally", got)
	}
	dir, _ := filepath.EvalSymlinks(filepath.Join(f.root, "sub/p"))
	if !strings.Contains(got, "[p:pwd] "+dir+"\n") {
		t.Errorf("output %q: want the working directory %s", got, dir)
	}
}

func TestUnknownTargets(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	cases := []struct {
		name, target string
		wantIn       []string
	}{
		{"a typo suggests the close match", "util:biuld", []string{`"util:biuld"`, "util:build"}},
		{"an unknown project names it", "web:build", []string{`no project "web"`, "api:build"}},
		{"a bare project name lists its targets", "util", []string{"is a project", "util:build"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.runner(Options{}).Run(context.Background(), f.ws(), []string{c.target})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.wantIn {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestEventsAndStates(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	var log eventLog
	r := f.runner(Options{Observer: Events(log.add)})
	f.runWith(r, "api:build")
	t.Run("a run that executes goes queued, running, succeeded", func(t *testing.T) {
		if s := log.states("util:build"); s != "queued,running,succeeded" {
			t.Errorf("events = %s", s)
		}
	})
	f.runWith(r, "api:build")
	t.Run("a cache hit goes queued, cached", func(t *testing.T) {
		if s := log.states("util:build"); s != "queued,running,succeeded,queued,cached" {
			t.Errorf("events = %s", s)
		}
	})
	t.Run("States holds the last state of each target", func(t *testing.T) {
		want := map[string]string{"util:build": StateCached, "api:build": StateCached}
		if got := r.States(); len(got) != 2 || got["util:build"] != want["util:build"] || got["api:build"] != want["api:build"] {
			t.Errorf("States() = %v", got)
		}
	})
	t.Run("the pool is idle afterwards", func(t *testing.T) {
		if s := r.Stats(); s.Running != 0 || s.Queued != 0 || s.Capacity != 2 {
			t.Errorf("Stats() = %+v", s)
		}
	})
}

// TestSharedPool runs two Runs at once on one Runner and checks, from the
// processes themselves, that no more than Capacity run at a time.
func TestSharedPool(t *testing.T) {
	const capacity = 2
	var b strings.Builder
	b.WriteString("projects:\n")
	// Each target registers itself in live/ while it runs and records how
	// many were registered, so the count is the processes' own view.
	probe := `mkdir -p ../live && touch ../live/$0 && ls ../live | wc -l >> ../counts && sleep 0.05 && rm ../live/$0 && echo done $0`
	for i := range 8 {
		name := "p" + strconv.Itoa(i)
		b.WriteString("  " + name + ":\n    path: " + name + "\n    targets:\n")
		b.WriteString("      work:\n        run: [/bin/sh, -c, \"" + probe + "\", " + name + "]\n")
	}
	files := map[string]string{}
	for i := range 8 {
		files["p"+strconv.Itoa(i)+"/in.txt"] = "in " + strconv.Itoa(i)
	}
	f := newFixture(t, b.String(), files)
	ws := f.ws()

	r := f.runner(Options{Capacity: capacity})
	// Both runs ask for p0..p5; each run also has two of its own.
	runA := []string{"p0:work", "p1:work", "p2:work", "p3:work", "p4:work", "p5:work", "p6:work"}
	runB := []string{"p5:work", "p4:work", "p3:work", "p2:work", "p1:work", "p0:work", "p7:work"}
	var wg sync.WaitGroup
	results := make([]*Result, 2)
	errs := make([]error, 2)
	stats := make(chan PoolStats, 1000)
	for i, targets := range [][]string{runA, runB} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = r.Run(context.Background(), ws, targets)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		default:
			select {
			case stats <- r.Stats():
			default:
			}
		}
	}
	close(stats)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}

	t.Run("no more than Capacity processes ran at once", func(t *testing.T) {
		data, _ := f.read("counts")
		for _, l := range strings.Fields(data) {
			if n, _ := strconv.Atoi(l); n > capacity {
				t.Errorf("a process saw %d targets running, capacity is %d", n, capacity)
			}
		}
		// Events are not counted: a target stays "running" while its
		// journal is written, after its process gave the slot back.
		for s := range stats {
			if s.Running > capacity {
				t.Errorf("Stats() = %+v", s)
			}
		}
	})
	t.Run("a target shared by both runs executes once and the other run hits the cache", func(t *testing.T) {
		data, _ := f.read("counts")
		if n := len(strings.Fields(data)); n != 8 {
			t.Errorf("%d executions, want 8 (one per target)", n)
		}
		for _, id := range []string{"p0:work", "p1:work", "p2:work", "p3:work", "p4:work", "p5:work"} {
			a, b := byTarget(results[0])[id], byTarget(results[1])[id]
			statuses := []string{a.Status, b.Status}
			slices.Sort(statuses)
			if statuses[0] != StateCached || statuses[1] != StateSucceeded {
				t.Errorf("%s: statuses %v, want one cached and one succeeded", id, statuses)
			}
			if a.CacheKey != b.CacheKey {
				t.Errorf("%s: keys differ between runs", id)
			}
		}
	})
	t.Run("every journal is whole and final", func(t *testing.T) {
		js, err := ListJournals(f.cacheDir(), 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(js) != 14 {
			t.Errorf("%d journals, want 14", len(js))
		}
		for _, j := range js {
			full, err := ReadJournal(f.cacheDir(), j.ID)
			if err != nil {
				t.Errorf("journal %s: %v", j.ID, err)
				continue
			}
			if full.Status != StateSucceeded && full.Status != StateCached {
				t.Errorf("journal %s: status %s", j.ID, full.Status)
			}
			if !strings.HasPrefix(full.Output, "done p") {
				t.Errorf("journal %s: output %q", j.ID, full.Output)
			}
		}
	})
	t.Run("every cache entry is whole", func(t *testing.T) {
		n := CacheEntries(f.cacheDir())
		if n != 8 {
			t.Errorf("%d cache entries, want 8", n)
		}
		entries, _ := os.ReadDir(buildDir(f.cacheDir()))
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("temporary entry %s left behind", e.Name())
				continue
			}
			if _, ok := lookup(f.cacheDir(), e.Name()); !ok {
				t.Errorf("entry %s does not read back", e.Name())
			}
		}
	})
	t.Run("the pool is empty afterwards", func(t *testing.T) {
		if s := r.Stats(); s.Running != 0 || s.Queued != 0 {
			t.Errorf("Stats() = %+v", s)
		}
	})
}

func TestInterrupt(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      slow:
        run: [/bin/sh, -c, "echo started; sleep 60 & wait"]
      after:
        run: [/bin/sh, -c, "touch ran-after"]
        deps: [slow]
`, map[string]string{"p/x": "x"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	onEvent := func(e Event) {
		if e.Target == "p:slow" && e.State == StateRunning {
			cancel()
		}
	}
	res, err := f.runner(Options{Observer: Events(onEvent)}).Run(ctx, f.ws(), []string{"p:after"})
	if err != nil {
		t.Fatal(err)
	}
	got := byTarget(res)
	t.Run("the running target is interrupted", func(t *testing.T) {
		if r := got["p:slow"]; r.Status != StateInterrupted {
			t.Errorf("p:slow = %+v", r)
		}
		j, err := ReadJournal(f.cacheDir(), got["p:slow"].RunID)
		if err != nil || j.Status != StateInterrupted || j.End.IsZero() {
			t.Errorf("journal = %+v, %v", j, err)
		}
	})
	t.Run("its dependents are skipped", func(t *testing.T) {
		if r := got["p:after"]; r.Status != StateSkipped {
			t.Errorf("p:after = %+v", r)
		}
		if _, ok := f.read("p/ran-after"); ok {
			t.Error("p:after ran")
		}
	})
	t.Run("the result says interrupted", func(t *testing.T) {
		if !res.Interrupted() || !res.Failed() {
			t.Errorf("Interrupted() = %v, Failed() = %v", res.Interrupted(), res.Failed())
		}
	})
	t.Run("an interrupted run is not cached", func(t *testing.T) {
		if n := CacheEntries(f.cacheDir()); n != 0 {
			t.Errorf("%d cache entries", n)
		}
	})
}

func TestStartFailure(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      missing:
        run: [no-such-program-for-core-tests]
`, map[string]string{"p/x": "x"})
	r := f.run("p:missing")["p:missing"]
	if r.Status != StateFailed || !strings.Contains(r.Err, "no-such-program-for-core-tests") {
		t.Errorf("result = %+v, want failed naming the program", r)
	}
}

func TestCanceledBeforeStart(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.runner(Options{}).Run(ctx, f.ws(), []string{"api:build"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Targets {
		if r.Status != StateSkipped {
			t.Errorf("%s = %s, want skipped", r.Target, r.Status)
		}
	}
	if js, _ := ListJournals(f.cacheDir(), 0, ""); len(js) != 0 {
		t.Errorf("%d journals for targets that never started", len(js))
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatal("context not cancelled")
	}
}

func TestPlanRejectsACycle(t *testing.T) {
	// targets.yaml cannot declare one (the loader rejects it); a
	// hand-built workspace can, and the planner still refuses it.
	ws := &workspace.Workspace{Projects: []*workspace.Project{{
		Name: "p", Path: "p",
		Targets: []*workspace.Target{
			{Project: "p", Name: "a", Run: []string{"/bin/true"}, Deps: []string{"p:b"}},
			{Project: "p", Name: "b", Run: []string{"/bin/true"}, Deps: []string{"p:a"}},
		},
	}}}
	_, err := plan(ws, []string{"p:a"})
	if err == nil || !strings.Contains(err.Error(), "cycle") || !strings.Contains(err.Error(), "p:a -> p:b -> p:a") {
		t.Errorf("err = %v, want the cycle named", err)
	}
}

func TestPlanRunsEachTargetOnce(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	order, err := plan(f.ws(), []string{"api:build", "util:build", "api:build"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, n := range order {
		ids = append(ids, n.t.ID())
	}
	if want := []string{"util:build", "api:build"}; !slices.Equal(ids, want) {
		t.Errorf("plan = %v, want %v", ids, want)
	}
}

// recordingObserver keeps what an Observer hears.
type recordingObserver struct {
	mu      sync.Mutex
	events  []Event
	started []Request
	ended   []Request
	results []*Result
}

func (o *recordingObserver) Event(e Event) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

func (o *recordingObserver) RunStarted(r Request) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.started = append(o.started, r)
}

func (o *recordingObserver) RunEnded(r Request, res *Result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ended, o.results = append(o.ended, r), append(o.results, res)
}

func TestObserver(t *testing.T) {
	f := newFixture(t, `projects:
  a:
    path: a
    targets:
      lib:
        run: [/bin/sh, -c, "echo lib"]
      top:
        run: [/bin/sh, -c, "echo top"]
        deps: [lib]
`, map[string]string{"a/x": "x"})
	obs := &recordingObserver{}
	r := f.runner(Options{Observer: obs})

	t.Run("a Run is heard starting and ending with what was asked for and every outcome", func(t *testing.T) {
		res, err := r.Run(context.Background(), f.ws(), []string{"a:top"})
		if err != nil {
			t.Fatal(err)
		}
		if len(obs.started) != 1 || !slices.Equal(obs.started[0].Targets, []string{"a:top"}) || obs.started[0].ID != "" {
			t.Fatalf("started %+v", obs.started)
		}
		if len(obs.ended) != 1 || obs.results[0] != res || len(res.Targets) != 2 {
			t.Fatalf("ended %+v with %+v", obs.ended, obs.results)
		}
		states := map[string]bool{}
		for _, e := range obs.events {
			states[e.Target+" "+e.State] = true
		}
		for _, want := range []string{"a:lib queued", "a:lib running", "a:lib succeeded", "a:top succeeded"} {
			if !states[want] {
				t.Errorf("no event %q among %v", want, states)
			}
		}
	})
	t.Run("a Start is heard with the run id it promised", func(t *testing.T) {
		id, done, err := r.Start(context.Background(), f.ws(), "a:top")
		if err != nil {
			t.Fatal(err)
		}
		res := <-done
		obs.mu.Lock()
		defer obs.mu.Unlock()
		if len(obs.started) != 2 || obs.started[1].ID != id || !slices.Equal(obs.started[1].Targets, []string{"a:top"}) {
			t.Fatalf("started %+v, want the second with id %s", obs.started, id)
		}
		if len(obs.ended) != 2 || obs.ended[1].ID != id || obs.results[1] != res {
			t.Fatalf("ended %+v", obs.ended)
		}
	})
}
