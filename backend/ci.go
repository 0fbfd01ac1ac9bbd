package backend

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/corehq/core/internal/runlog"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/shard"
	"github.com/corehq/core/internal/workspace"
)

// The CI shards' vocabulary (package shard).
type (
	ShardPlan = shard.Plan
	ShardNeed = shard.Need
	CIReport  = shard.Report
	CIResult  = shard.Result
)

// ParseShard reads --shard I/N.
func ParseShard(spec string) (i, n int, err error) { return shard.ParseSpec(spec) }

// ShardPlan splits targets (as core run selected them) and their
// dependencies into n shards, each target weighed by this workspace's run
// log (package shard says how). Nothing runs; the cache is not asked, so
// that every runner with the same checkout and run log computes the same
// plan.
func (l *Local) ShardPlan(ctx context.Context, ws *workspace.Workspace, targets []string, n int) (ShardPlan, error) {
	if err := shard.CheckCount(n); err != nil {
		return ShardPlan{}, err // before hashing every input
	}
	planned, err := l.Runner(RunOptions{Cache: runner.CacheOff}).Plan(ctx, ws, targets)
	if err != nil {
		return ShardPlan{}, err
	}
	history, err := runner.ListJournals(l.cacheDir, 0, "")
	if err != nil {
		return ShardPlan{}, err
	}
	in := make([]shard.Unweighed, len(planned))
	for i, p := range planned {
		in[i] = shard.Unweighed{ID: p.Target, Deps: p.Deps, Inputs: p.Inputs}
	}
	return shard.Make(shard.Weigh(in, history), n)
}

// GatherCIReport gathers the journals under dirs (each a directory the shards'
// runs directories were copied into, searched to any depth) into one
// report; with plan, every planned target must have a result.
func GatherCIReport(dirs []string, plan *ShardPlan) (CIReport, error) {
	var sources []shard.Source
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			js, err := runlog.ReadDir(path)
			if err != nil {
				return err
			}
			if len(js) > 0 {
				sources = append(sources, shard.Source{Name: path, Journals: js})
			}
			return nil
		})
		if err != nil {
			return CIReport{}, fmt.Errorf("ci report: %w", err)
		}
	}
	if len(sources) == 0 {
		return CIReport{}, fmt.Errorf("ci report: no run journals under %v: pass the directories the shards' .core/runs were downloaded to", dirs)
	}
	return shard.Gather(sources, plan), nil
}
