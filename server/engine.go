package server

import (
	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/cachedir"

	"context"
	"fmt"
	"os"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/forge"
	"github.com/corehq/core/internal/jobs"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/maintenance"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/notes"
	"github.com/corehq/core/internal/runner"
)

// scheduleTick is how often the scheduler looks for due jobs.
const scheduleTick = time.Minute

// engine is what runs work for the server: the runner, the job manager and
// the stores the jobs maintain.
type engine struct {
	runner   *runner.Runner
	jobs     *jobs.Manager
	activity *activity.Store
	notes    *notes.Store
	forge    *forge.Client
}

func newEngine(ctx context.Context, root, cacheDir string, cfg *config.Config, ws *live.Workspace, counters *metrics.Counters, log zerolog.Logger) (*engine, error) {
	e := &engine{}
	var err error
	if e.activity, err = activity.Open(cachedir.Activity(cacheDir), activity.DefaultCap); err != nil {
		return nil, err
	}
	if e.notes, err = notes.Open(cachedir.Notes(cacheDir)); err != nil {
		return nil, err
	}
	if n, err := runner.RecoverInterrupted(cacheDir); err != nil {
		log.Warn().Str(logx.Reason, err.Error()).Msg("cannot recover interrupted run journals")
	} else if n > 0 {
		e.activity.Add(activity.KindRun, fmt.Sprintf("%d runs were interrupted when core last stopped", n), "")
	}

	capacity, reason := runner.Capacity(cfg.Concurrency, os.Getenv)
	log.Info().Int("capacity", capacity).Str(logx.Reason, reason).Str("env_mode", cfg.EnvMode).Msg("run pool")
	remote, err := backend.RemoteCache(cfg, os.Getenv)
	switch {
	case err != nil:
		// Runs build locally; the server still starts (core doctor says why).
		log.Warn().Str(logx.Reason, err.Error()).Msg("remote cache not used")
	case remote != nil:
		log.Info().Str("remote", remote.String()).Str("mode", remote.Mode()).Msg("remote cache")
	}
	e.runner = runner.New(runner.Options{
		Root: root, CacheDir: cacheDir, Capacity: capacity, Trigger: "console",
		Observer: &runBooks{counters: counters, activity: e.activity},
		Remote:   remote,
		Warn:     func(msg string) { log.Warn().Str(logx.Reason, msg).Msg("remote cache") },
		EnvMode:  cfg.EnvMode,
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
	if err := e.jobs.Persist(cachedir.Jobs(cacheDir)); err != nil {
		log.Warn().Str(logx.Reason, err.Error()).Msg("job history")
	}
	// One forge client, so that check-review and GET /api/v1/diff/review
	// share its caches (and the forge's rate limit).
	e.forge = forge.New(forge.Config{Token: cfg.Forge.Token, APIURL: cfg.Forge.APIURL, Log: &log}, root, nil)
	deps := maintenance.Deps{Root: root, CacheDir: cacheDir, Workspace: ws, Runner: e.runner, Activity: e.activity, Forge: e.forge}
	for _, j := range maintenance.Jobs(deps) {
		e.jobs.Register(j)
	}
	if err := maintenance.Observe(ctx, deps); err != nil {
		log.Warn().Str(logx.Reason, err.Error()).Msg("cannot note the branch under review; check-review will try again")
	}

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
