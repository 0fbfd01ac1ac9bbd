package backend

import (
	"context"
	"errors"
	"fmt"

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

// AffectedPage is what the change affects, for an agent: the changed
// files and the affected projects (at most 100 of each, with their
// counts) and a page of the affected targets.
type AffectedPage struct {
	Files         []string `json:"files" jsonschema:"the changed files (at most 100)"`
	FilesTotal    int      `json:"files_total"`
	Projects      []Why    `json:"projects" jsonschema:"the affected projects (at most 100), each with its reason chain"`
	ProjectsTotal int      `json:"projects_total"`
	Targets       []Why    `json:"targets" jsonschema:"a page of the affected targets, each with its reason chain"`
	Paging
}

var affectedLimits = listLimits{def: 100, max: 500}

const maxAffectedFiles = 100

// AffectedPage computes what the change against base affects, bounded.
func (r *Runs) AffectedPage(ctx context.Context, base string, req PageRequest) (AffectedPage, error) {
	a, err := r.Affected(ctx, base)
	if err != nil {
		return AffectedPage{}, err
	}
	out := AffectedPage{Files: a.Files[:min(len(a.Files), maxAffectedFiles)], FilesTotal: len(a.Files),
		Projects: a.Projects[:min(len(a.Projects), maxAffectedFiles)], ProjectsTotal: len(a.Projects)}
	if out.Files == nil {
		out.Files = []string{}
	}
	out.Targets, out.Paging, err = page(a.Targets, question("affected", base), req, affectedLimits, listBudget-encodedLen(out), "run_affected runs the targets of one name")
	if out.Targets == nil {
		out.Targets = []Why{}
	}
	return out, err
}
