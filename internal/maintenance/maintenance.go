// Package maintenance defines the server's maintenance jobs, the six the
// spec names, in one place: each job's name, what it does, the unit of its
// size, how often it runs when the server is idle, and how it runs, over
// operations of the domain packages (live, runner, activity, review,
// drift), which know nothing of jobs. The job manager (internal/jobs) runs
// what Jobs returns; the server registers it.
package maintenance

import (
	"context"
	"fmt"
	"time"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/drift"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/mergewatch"
	"github.com/corehq/core/internal/runner"
)

// Schedules: each job runs only when the server is idle, and at least this
// long after its last run. A job without one runs when asked.
const (
	SyncEvery   = 30 * time.Minute
	RotateEvery = time.Hour
	ReviewEvery = 15 * time.Minute
	DriftEvery  = 6 * time.Hour
)

// Deps are what the jobs maintain.
type Deps struct {
	Root, CacheDir string
	Workspace      *live.Workspace
	Runner         *runner.Runner
	Activity       *activity.Store
	// Forge, when set, tells check-review about squash and rebase merges
	// (internal/forge); nil leaves it to git's ancestry.
	Forge mergewatch.Forge
}

// reviewsFile is where check-review keeps the branches it watches.
func reviewsFile(cacheDir string) string { return cachedir.MergeWatch(cacheDir) }

// Observe notes, as a server starts, what the jobs watch from then on: the
// branch under review, so that its merge is noticed even if the server
// stops before check-review first runs.
func Observe(ctx context.Context, d Deps) error {
	return mergewatch.Observe(ctx, d.Root, reviewsFile(d.CacheDir))
}

// Jobs are the server's maintenance jobs.
func Jobs(d Deps) []jobs.Job {
	reviews := reviewsFile(d.CacheDir)
	return []jobs.Job{
		{
			Name: "sync-graph", Unit: "nodes", Every: SyncEvery,
			Description: "Reconcile the knowledge graph to current source.",
			Run: func(context.Context) (string, error) {
				if err := d.Workspace.Rebuild(); err != nil {
					return "", err
				}
				snap, err := d.Workspace.Current()
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("graph version %d: %d nodes, %d edges", snap.Version, snap.Nodes, snap.Edges), nil
			},
			Size: func() int64 {
				if snap, err := d.Workspace.Current(); err == nil {
					return int64(snap.Nodes)
				}
				return 0
			},
		},
		{
			Name: "rotate-activities", Unit: "entries", Every: RotateEvery,
			Description: fmt.Sprintf("Trim the activity trail to its cap (%d entries).", d.Activity.Cap()),
			Run: func(context.Context) (string, error) {
				removed, err := d.Activity.Trim()
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("removed %d entries, kept %d", removed, d.Activity.Len()), nil
			},
			Size: func() int64 { return int64(d.Activity.Len()) },
		},
		{
			Name: "rotate-logs", Unit: "journals", Every: RotateEvery,
			Description: fmt.Sprintf("Trim the run journals to their cap (%d) and the build cache to its cap (%d entries).", runner.DefaultJournalCap, runner.DefaultCacheCap),
			Run: func(context.Context) (string, error) {
				j, err := runner.TrimJournals(d.CacheDir, runner.DefaultJournalCap)
				if err != nil {
					return "", err
				}
				c, err := runner.TrimCache(d.CacheDir, runner.DefaultCacheCap)
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("removed %d journals and %d cache entries", j, c), nil
			},
			Size: func() int64 { return int64(runner.CountJournals(d.CacheDir)) },
		},
		{
			Name: "clear-cache", Unit: "entries",
			Description: "Invalidate every cached build entry.",
			Run: func(context.Context) (string, error) {
				n, err := d.Runner.ClearCache()
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("removed %d cache entries", n), nil
			},
			Size: func() int64 { return int64(runner.CacheEntries(d.CacheDir)) },
		},
		{
			Name: "check-review", Unit: "branches", Every: ReviewEvery,
			Description: "Note when a review this tree took part in has merged.",
			Run:         func(ctx context.Context) (string, error) { return mergewatch.Report(ctx, d.Root, reviews, d.Forge) },
			Size: func() int64 {
				n, _ := mergewatch.Size(reviews)
				return n
			},
		},
		{
			Name: "check-drift", Unit: "targets", Every: DriftEvery,
			Description: "Notice, without blocking, a commit that left generated output or formatting stale.",
			Run: func(ctx context.Context) (string, error) {
				ws, err := d.Workspace.Declared()
				if err != nil {
					return "", err
				}
				mode := ""
				if d.Runner != nil {
					mode = d.Runner.EnvMode() // drift targets get what their runs would
				}
				msg, notices, err := drift.Report(ctx, d.Root, ws, mode)
				// One activity per stale target, beside the job's own line.
				for _, n := range notices {
					d.Activity.Add(activity.KindJob, "drift: "+n.String(), n.Target)
				}
				return msg, err
			},
			Size: func() int64 {
				ws, err := d.Workspace.Declared()
				if err != nil {
					return 0
				}
				return int64(drift.Count(ws))
			},
		},
	}
}
