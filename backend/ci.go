package backend

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

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

// CheckShards checks --shards N.
func CheckShards(n int) error { return shard.CheckCount(n) }

// ParseShard reads --shard I/N.
func ParseShard(spec string) (i, n int, err error) { return shard.ParseSpec(spec) }

// ShardPlan splits targets (as core run selected them) and their
// dependencies into n shards, each target weighed by its history (package
// shard says how): the journals under the history directories when there
// are any (a CI run's, handed to every job alike), else this workspace's
// run log. Nothing runs; the cache is not asked, so that every runner with
// the same checkout and history computes the same plan.
func (l *Local) ShardPlan(ctx context.Context, ws *workspace.Workspace, targets []string, n int, history ...string) (ShardPlan, error) {
	if err := shard.CheckCount(n); err != nil {
		return ShardPlan{}, err // before hashing every input
	}
	if len(targets) == 0 {
		return shard.Make(nil, n) // nothing affected: N shards with nothing to do
	}
	planned, err := l.Runner(RunOptions{Cache: runner.CacheOff}).Plan(ctx, ws, targets)
	if err != nil {
		return ShardPlan{}, err
	}
	var past []runlog.Journal
	if len(history) == 0 {
		past, err = runner.ListJournals(l.cacheDir, 0, "")
	} else {
		past, err = journalsUnder(history)
		slices.Reverse(past) // newest first, as the run log lists them
	}
	if err != nil {
		return ShardPlan{}, err
	}
	in := make([]shard.Unweighed, len(planned))
	for i, p := range planned {
		in[i] = shard.Unweighed{ID: p.Target, Deps: p.Deps, Inputs: p.Inputs}
	}
	return shard.Make(shard.Weigh(in, past), n)
}

// GatherCIReport gathers the journals under dirs (each a directory the
// shards' runs directories were copied into, searched to any depth) into
// one report; with plan, every planned target must have a result.
func GatherCIReport(dirs []string, plan *ShardPlan) (CIReport, error) {
	var sources []shard.Source
	err := walkJournals(dirs, func(dir string, js []runlog.Journal) {
		sources = append(sources, shard.Source{Name: dir, Journals: js})
	})
	if err != nil {
		return CIReport{}, fmt.Errorf("ci report: %w", err)
	}
	if len(sources) == 0 {
		return CIReport{}, fmt.Errorf("ci report: no run journals under %s: pass the directories the shards' .core/runs were downloaded to", strings.Join(dirs, ", "))
	}
	return shard.Gather(sources, plan), nil
}

// journalsUnder are the journals in every directory under dirs, oldest
// first.
func journalsUnder(dirs []string) ([]runlog.Journal, error) {
	var all []runlog.Journal
	err := walkJournals(dirs, func(_ string, js []runlog.Journal) { all = append(all, js...) })
	slices.SortStableFunc(all, func(a, b runlog.Journal) int { return strings.Compare(a.ID, b.ID) })
	return all, err
}

// walkJournals calls f with the journals of each directory under dirs
// that holds any.
func walkJournals(dirs []string, f func(dir string, js []runlog.Journal)) error {
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
				f(path, js)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
