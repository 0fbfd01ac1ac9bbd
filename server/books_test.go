package server

import (
	"path/filepath"
	"testing"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/runner"
)

func TestRunBooks(t *testing.T) {
	store, err := activity.Open(filepath.Join(t.TempDir(), "activity.jsonl"), 100)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	counters := metrics.New()
	b := &runBooks{counters: counters, activity: store}

	req := runner.Request{Targets: []string{"api:build"}, ID: "r1"}
	b.RunStarted(req)
	b.Event(runner.Event{Target: "util:build", State: runner.StateCached})
	b.Event(runner.Event{Target: "api:build", State: runner.StateRunning})
	b.RunEnded(req, &runner.Result{Targets: []runner.TargetResult{
		{Target: "util:build", Status: runner.StateCached, RunID: "r0"},
		{Target: "api:build", Status: runner.StateFailed, RunID: "r1"},
	}})

	t.Run("the counters count the run, the cache's answers and every outcome", func(t *testing.T) {
		got := counters.Snapshot()
		for name, want := range map[string]int64{"runs_started": 1, "cache_hits": 1, "cache_misses": 1, "runs_cached": 1, "runs_failed": 1} {
			if got[name] != want {
				t.Errorf("%s = %d, want %d (%v)", name, got[name], want, got)
			}
		}
	})
	t.Run("only the target asked for is filed in the trail", func(t *testing.T) {
		list := store.List(10, "")
		if len(list) != 1 || list[0].Message != "api:build failed (run r1)" || list[0].Subject != "target:api:build" || list[0].Kind != activity.KindRun {
			t.Fatalf("trail %+v", list)
		}
	})
}
