package shard

import (
	"slices"
	"strings"

	"github.com/corehq/core/internal/runlog"
)

// Where a target's weight came from.
const (
	FromHistory = "history" // its own runs that executed
	FromName    = "name"    // runs of the target of that name in other projects
	FromSize    = "size"    // its input files, for a target never run
)

// Weighing constants: how many of a target's latest executed runs its
// weight is the median of, and the size estimate of a target with no
// history under its id or its name: a second, plus 20ms per input file
// (a guess of what a build or test of that many files costs; a shard's
// first real run replaces it with history).
const (
	historyRuns    = 5
	sizeBaseMS     = 1000
	sizePerInputMS = 20
)

// Unweighed is a target before weighing: what a dry run knows of it.
type Unweighed struct {
	ID     string
	Deps   []string
	Inputs int // its input files
}

// Weigh gives each target a weight: the median duration of its latest
// executed runs in history (runs the cache served cost nothing to weigh
// and say nothing of the work), else the median over the latest runs of
// targets of the same name in other projects, else its size. history is
// the run log, newest first (runlog.List). Only what history holds
// decides it, so runners with the same journals compute the same weights.
func Weigh(targets []Unweighed, history []runlog.Journal) []Target {
	byID := map[string][]int64{}
	byName := map[string][]int64{}
	for _, j := range history {
		if j.CacheHit || j.End.IsZero() || (j.Status != runlog.StateSucceeded && j.Status != runlog.StateFailed) {
			continue
		}
		ms := j.End.Sub(j.Start).Milliseconds()
		if len(byID[j.Target]) < historyRuns {
			byID[j.Target] = append(byID[j.Target], ms)
		}
		if name := nameOf(j.Target); len(byName[name]) < historyRuns*4 {
			byName[name] = append(byName[name], ms)
		}
	}
	out := make([]Target, len(targets))
	for i, t := range targets {
		out[i] = Target{ID: t.ID, Deps: t.Deps}
		switch {
		case len(byID[t.ID]) > 0:
			out[i].Weight, out[i].Source = median(byID[t.ID]), FromHistory
		case len(byName[nameOf(t.ID)]) > 0:
			out[i].Weight, out[i].Source = median(byName[nameOf(t.ID)]), FromName
		default:
			out[i].Weight, out[i].Source = sizeBaseMS+sizePerInputMS*int64(t.Inputs), FromSize
		}
	}
	return out
}

func nameOf(id string) string {
	_, name, _ := strings.Cut(id, ":")
	return name
}

func median(ms []int64) int64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	return s[len(s)/2]
}
