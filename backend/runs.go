package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/suggest"
)

// Runs is the runs area: starting a declared target on the server's
// runner, the plan with each target's live state, the journals of past
// runs, and what the working change affects.
type Runs struct {
	ws       *live.Workspace
	runner   *runner.Runner
	runCtx   context.Context
	cacheDir string
}

// Start starts a run of target, which targets.yaml must declare (never an
// argv from a caller), on the server's runner, with the workspace and its
// imports read again first (so that its key never misses what was just
// written). It answers the run's id, under which the journal exists at
// once, and a channel that receives the result. The run ends with the
// server, not with the request that started it.
func (r *Runs) Start(target string) (string, <-chan *runner.Result, error) {
	ws, err := r.ws.ForRun()
	if err != nil {
		return "", nil, apierr.Unavailable("%v", err)
	}
	if ws.Target(target) == nil {
		return "", nil, apierr.BadRequest("%s is not a target targets.yaml declares%s; write project:target", quote.Short(target), suggest.DidYouMean(target, ws.TargetIDs()))
	}
	return r.runner.Start(r.runCtx, ws, target)
}

// Plan is the target graph, reparsed from targets.yaml, with each target's
// live state on the server's runner (idle until queued in its life).
func (r *Runs) Plan(g *Graph) (*graph.Graph, error) {
	tg, err := g.Targets()
	if err != nil {
		return nil, err
	}
	var states map[string]string
	if r.runner != nil {
		states = r.runner.States()
	}
	for i := range tg.Nodes {
		n := &tg.Nodes[i]
		n.State = "idle"
		if st, ok := states[n.Project+":"+n.Name]; ok {
			n.State = st
		}
	}
	return tg, nil
}

// The bounds of a list of runs.
const (
	DefaultRuns = 50
	MaxRuns     = 500
)

// List is the latest runs, newest first, of target ("" for all): at most
// limit (0 means DefaultRuns, up to MaxRuns).
func (r *Runs) List(limit int, target string) ([]runner.Journal, error) {
	switch {
	case limit == 0:
		limit = DefaultRuns
	case limit < 0 || limit > MaxRuns:
		return nil, apierr.BadRequest("limit %d is out of range; allowed: 1 to %d (0 means %d)", limit, MaxRuns, DefaultRuns)
	}
	return runner.ListJournals(r.cacheDir, limit, target)
}

// Get is the journal of run id: its command, output and result.
func (r *Runs) Get(id string) (runner.Journal, error) {
	if !runner.ValidID(id) {
		return runner.Journal{}, apierr.BadRequest("%s is not a run id; see ListRuns", quote.Short(id))
	}
	j, err := runner.ReadJournal(r.cacheDir, id)
	if errors.Is(err, runner.ErrNotFound) {
		return j, apierr.NotFound("no run %s (it may have been rotated out; see ListRuns)", id)
	}
	return j, err
}

// Summary is a run as an agent reads it: its result and the end of its
// output, bounded.
type Summary struct {
	ID        string   `json:"id"`
	Target    string   `json:"target,omitempty"`
	Status    string   `json:"status,omitempty"`
	ExitCode  int      `json:"exit_code"`
	CacheHit  bool     `json:"cache_hit,omitempty"`
	Argv      []string `json:"argv,omitempty"`
	Output    string   `json:"output,omitempty"`
	Truncated bool     `json:"output_truncated,omitempty"`
}

// Summarize is run id with at most maxOutput bytes of its output, from its
// end (where a failure says why).
func (r *Runs) Summarize(id string, maxOutput int) (Summary, error) {
	j, err := r.Get(id)
	if err != nil {
		return Summary{ID: id}, err
	}
	v := Summary{ID: j.ID, Target: j.Target, Status: j.Status, ExitCode: j.ExitCode, CacheHit: j.CacheHit, Argv: j.Argv, Output: j.Output, Truncated: j.Truncated}
	if len(v.Output) > maxOutput {
		v.Output, v.Truncated = v.Output[len(v.Output)-maxOutput:], true
	}
	return v, nil
}

// RunAndWait starts target and waits up to wait (or the caller's ctx) for
// it to end, then summarizes it: what an agent asks in one call.
func (r *Runs) RunAndWait(ctx context.Context, target string, wait time.Duration, maxOutput int) (Summary, error) {
	id, done, err := r.Start(target)
	if err != nil {
		return Summary{}, err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-ctx.Done():
	}
	return r.Summarize(id, maxOutput)
}

// Affected is what the working change affects (committed on the branch
// since its merge base with base, staged, unstaged and untracked), each
// project and target with the reason chain that makes it affected.
type Affected struct {
	Files    []string `json:"files"`
	Projects []Why    `json:"projects"`
	Targets  []Why    `json:"targets"`
}

// Why is an affected node with its reason chain, back to a changed file.
type Why struct {
	ID     string   `json:"id"`
	Reason []string `json:"reason"`
}

// Affected computes what the change against base affects.
func (r *Runs) Affected(ctx context.Context, base string) (Affected, error) {
	ws, err := r.ws.Resolved()
	if err != nil {
		return Affected{}, apierr.Unavailable("%v", err)
	}
	changed, err := affected.Changed(ctx, r.ws.Root(), base)
	if err != nil {
		return Affected{}, fmt.Errorf("%w", err)
	}
	set, why := affected.Explain(ws, changed)
	out := Affected{Files: set.Files, Projects: []Why{}, Targets: []Why{}}
	for _, p := range set.Projects {
		out.Projects = append(out.Projects, Why{p, why.Project(p)})
	}
	for _, t := range set.Targets {
		out.Targets = append(out.Targets, Why{t, why.Target(t)})
	}
	return out, nil
}
