package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/drift"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/notes"
	"github.com/corehq/core/internal/review"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/workspace"
)

// Schedules of the maintenance jobs; each runs only when the server is
// idle and at least this long after its last run.
const (
	syncEvery   = 30 * time.Minute
	rotateEvery = time.Hour
	reviewEvery = 15 * time.Minute
	driftEvery  = 6 * time.Hour
	// scheduleTick is how often the scheduler looks for due jobs.
	scheduleTick = time.Minute
)

// engine is what runs work for the server: the runner, the job manager and
// the stores the jobs maintain.
type engine struct {
	runner   *runner.Runner
	jobs     *jobs.Manager
	activity *activity.Store
	notes    *notes.Store
}

func newEngine(ctx context.Context, root, cacheDir string, cfg *config.Config, ws *live.Workspace, counters *metrics.Counters, log zerolog.Logger) (*engine, error) {
	e := &engine{}
	var err error
	if e.activity, err = activity.Open(filepath.Join(cacheDir, "activity.jsonl"), activity.DefaultCap); err != nil {
		return nil, err
	}
	if e.notes, err = notes.Open(filepath.Join(cacheDir, "notes.json")); err != nil {
		return nil, err
	}
	if n, err := runner.RecoverInterrupted(cacheDir); err != nil {
		log.Warn().Str(logx.Reason, err.Error()).Msg("cannot recover interrupted run journals")
	} else if n > 0 {
		e.activity.Add(activity.KindRun, fmt.Sprintf("%d runs were interrupted when core last stopped", n), "")
	}

	capacity, reason, err := runner.Capacity(os.Getenv)
	if err != nil {
		return nil, err
	}
	if cfg.Concurrency > 0 {
		capacity, reason = cfg.Concurrency, "concurrency setting"
	}
	log.Info().Int("capacity", capacity).Str(logx.Reason, reason).Msg("run pool")
	e.runner = runner.New(runner.Options{
		Root: root, CacheDir: cacheDir, Capacity: capacity, Trigger: "console",
		OnEvent: func(ev runner.Event) {
			if ev.State == runner.StateCached {
				counters.Add("cache_hits", 1)
			}
			if ev.State == runner.StateRunning {
				counters.Add("cache_misses", 1)
			}
		},
	})

	e.jobs = jobs.NewManager(func(s jobs.Snapshot, r *jobs.Run) {
		if r == nil {
			return
		}
		counters.Add("jobs_run", 1)
		kind := activity.KindJob
		if r.Result == jobs.ResultFailed {
			kind = activity.KindError
		}
		e.activity.Add(kind, s.Name+" "+r.Result+": "+r.Message, s.Name)
	})
	if err := e.jobs.Persist(filepath.Join(cacheDir, "jobs.json")); err != nil {
		log.Warn().Str(logx.Reason, err.Error()).Msg("job history")
	}
	e.jobs.Register(jobs.Job{
		Name: "sync-graph", Description: "Reconcile the knowledge graph to current source.", Unit: "nodes", Every: syncEvery,
		Run: func(context.Context) (string, error) {
			if err := ws.Rebuild(); err != nil {
				return "", err
			}
			snap, err := ws.Current()
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("graph version %d: %d nodes, %d edges", snap.Version, snap.Nodes, snap.Edges), nil
		},
		Size: func() int64 {
			if snap, err := ws.Current(); err == nil {
				return int64(snap.Nodes)
			}
			return 0
		},
	})
	e.jobs.Register(activity.RotateJob(e.activity))
	e.jobs.Register(jobs.Job{
		Name: "rotate-logs", Unit: "journals", Every: rotateEvery,
		Description: fmt.Sprintf("Trim the run journals to their cap (%d) and the build cache to its cap (%d entries).", runner.DefaultJournalCap, runner.DefaultCacheCap),
		Run: func(context.Context) (string, error) {
			j, err := runner.TrimJournals(cacheDir, runner.DefaultJournalCap)
			if err != nil {
				return "", err
			}
			c, err := runner.TrimCache(cacheDir, runner.DefaultCacheCap)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("removed %d journals and %d cache entries", j, c), nil
		},
		Size: func() int64 { return int64(runner.CountJournals(cacheDir)) },
	})
	e.jobs.Register(jobs.Job{
		Name: "clear-cache", Unit: "entries", Description: "Invalidate every cached build entry.",
		Run: func(context.Context) (string, error) {
			n, err := e.runner.ClearCache()
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("removed %d cache entries", n), nil
		},
		Size: func() int64 { return int64(runner.CacheEntries(cacheDir)) },
	})
	reviewJob := review.Job(root, filepath.Join(cacheDir, "reviews.json"))
	reviewJob.Every = reviewEvery
	e.jobs.Register(reviewJob)
	driftJob := drift.Job(root, func() (*workspace.Workspace, error) { return workspace.Load(root) }, func(ns []drift.Notice) {
		for _, n := range ns {
			e.activity.Add(activity.KindJob, "drift: "+n.String(), n.Target)
		}
	})
	driftJob.Every = driftEvery
	e.jobs.Register(driftJob)

	_ = review.Observe(ctx, root, filepath.Join(cacheDir, "reviews.json"))
	requests := counters.Counter("requests_total")
	var seen int64 = -1
	go e.jobs.Schedule(ctx, func() bool {
		// Idle: nothing running and no request since the last look.
		now := requests.Load()
		idle := now == seen && e.runner.Stats().Running == 0
		seen = now
		return idle
	}, scheduleTick)
	return e, nil
}

func (e *engine) close(ctx context.Context) {
	_ = e.jobs.Shutdown(ctx)
	_ = e.activity.Close()
}
