package server

import (
	"slices"
	"strings"

	"github.com/corehq/core/internal/activity"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/runner"
)

// runBooks keeps the server's books on runs: the counters of the metrics
// service and the activity trail. It is the runner's one observer, so no
// handler counts or files anything about a run.
type runBooks struct {
	counters *metrics.Counters
	activity *activity.Store
}

// Event counts the cache's answers: a target that runs missed it. A hit
// of the remote cache counts as a hit and as a remote hit.
func (b *runBooks) Event(e runner.Event) {
	switch e.State {
	case runner.StateCached:
		b.counters.Add(metrics.CacheHits, 1)
		if e.From == runner.FromRemote {
			b.counters.Add(metrics.RemoteHits, 1)
		}
	case runner.StateRunning:
		b.counters.Add(metrics.CacheMisses, 1)
	}
}

// RunStarted counts the run.
func (b *runBooks) RunStarted(runner.Request) { b.counters.Add("runs_started", 1) }

// RunEnded counts every planned target's outcome and files one activity
// per target that was asked for (the dependencies it ran are counted, not
// filed).
func (b *runBooks) RunEnded(req runner.Request, res *runner.Result) {
	b.counters.Add(metrics.RemoteUploads, int64(res.Remote.Uploaded))
	b.counters.Add(metrics.RemoteBytesDown, res.Remote.BytesDown)
	b.counters.Add(metrics.RemoteBytesUp, res.Remote.BytesUp)
	var filed []activity.Draft
	for _, t := range res.Targets {
		b.counters.Add("runs_"+t.Status, 1)
		if !slices.Contains(req.Targets, t.Target) {
			continue
		}
		project, name, _ := strings.Cut(t.Target, ":")
		filed = append(filed, activity.Draft{Kind: activity.KindRun, Message: t.Target + " " + t.Status + " (run " + t.RunID + ")", Subject: graph.TargetID(project, name)})
	}
	// One append for the run: an fsync per target was most of what a
	// cached run of many targets cost the server.
	b.activity.AddAll(filed)
}
