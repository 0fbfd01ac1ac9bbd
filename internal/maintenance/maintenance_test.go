package maintenance

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/jobs"
)

func TestJobs(t *testing.T) {
	store, err := activity.Open(filepath.Join(t.TempDir(), "activity.jsonl"), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	list := Jobs(Deps{Root: t.TempDir(), CacheDir: t.TempDir(), Activity: store})

	t.Run("the jobs are the six the spec names, each with a description and a unit", func(t *testing.T) {
		var names []string
		for _, j := range list {
			names = append(names, j.Name)
			if j.Description == "" || j.Unit == "" || j.Run == nil || j.Size == nil {
				t.Errorf("%s is incomplete: %+v", j.Name, j)
			}
		}
		want := []string{"sync-graph", "rotate-activities", "rotate-logs", "clear-cache", "check-review", "check-drift"}
		if len(names) != len(want) {
			t.Fatalf("jobs %v, want %v", names, want)
		}
		for i := range want {
			if names[i] != want[i] {
				t.Fatalf("jobs %v, want %v", names, want)
			}
		}
	})
	t.Run("every job but clear-cache runs on its schedule", func(t *testing.T) {
		every := map[string]any{}
		for _, j := range list {
			every[j.Name] = j.Every
		}
		for name, want := range map[string]any{"sync-graph": SyncEvery, "rotate-activities": RotateEvery, "rotate-logs": RotateEvery, "check-review": ReviewEvery, "check-drift": DriftEvery} {
			if every[name] != want {
				t.Errorf("%s runs every %v, want %v", name, every[name], want)
			}
		}
		if every["clear-cache"] != time.Duration(0) {
			t.Errorf("clear-cache is scheduled every %v; it runs only when asked", every["clear-cache"])
		}
	})
	t.Run("rotate-activities trims the trail and reports what it removed", func(t *testing.T) {
		for range 5 {
			store.Add(activity.KindRun, "m", "")
		}
		m := jobs.NewManager(nil)
		for _, j := range list {
			m.Register(j)
		}
		if snap, _ := m.Get("jobs/rotate-activities"); snap.Size != 5 || snap.Unit != "entries" {
			t.Errorf("before: %+v", snap)
		}
		if _, _, err := m.Submit("jobs/rotate-activities", jobs.TriggerRequest); err != nil {
			t.Fatal(err)
		}
		snap := m.Wait("jobs/rotate-activities")
		if snap.Size != 3 || snap.LastRun == nil || snap.LastRun.Message != "removed 2 entries, kept 3" {
			t.Errorf("after: %+v (last run %+v)", snap, snap.LastRun)
		}
	})
}
