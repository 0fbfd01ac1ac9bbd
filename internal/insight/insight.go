// Package insight computes the insight lenses of a workspace from its
// whole git history and its run journals: hotspots, affinity, ownership,
// trend and volatility (docs/insight.md gives each formula, window and
// unit). The history of HEAD is read once (git diff-tree --numstat -M over
// the commits git rev-list lists, each commit's rename detection within a
// time bound: history.go), kept in <cache>/insight/history.gob and
// extended commit by commit; a rewritten history (the kept tip is no
// longer an ancestor of HEAD) is read again. Lenses are computed from the kept history on demand and cached
// until HEAD, the workspace or the question changes.
package insight

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/workspace"
)

// Defaults and bounds of a question.
const (
	DefaultWindow = "1y"
	DefaultLimit  = 20
	MaxLimit      = 500
	DefaultBulk   = 100 // a commit touching more files is a bulk change
	TrendWeeks    = 12
	TrendRecent   = 4 // the last weeks of the trend, compared with the baseline
	// MinBaselineWeeks is the history a project needs before the recent
	// weeks for its trend to have a direction; a younger one is "new".
	MinBaselineWeeks = 2
	QuietAfter       = 90 * 24 * time.Hour // an owner with no commit for this long has gone quiet
	MinTogether      = 2                   // affinity pairs need at least this many shared commits
	MaxPairFiles     = 50                  // commits touching more files give no file pairs
	MinFlipSample    = 3                   // volatility needs this many same-key run pairs
	maxJournals      = 5000                // volatility reads at most this many recent runs
	complexityFile   = 1 << 20             // files over 1 MiB get no complexity
)

// Lenses, in the order the answer holds them.
var Lenses = []string{"hotspots", "affinity", "ownership", "trend", "volatility"}

// ErrNotRepository says the workspace is not in a git repository.
var ErrNotRepository = errors.New("the workspace is not inside a git repository: insight reads git history; run git init and commit")

// Params is a question: which lenses, over which window, for which
// project, how many rows.
type Params struct {
	Lenses  []string // empty: all
	Window  string   // "90d", "1y", "all", or "<N>d"; "" is DefaultWindow
	Project string   // "" for every project
	Limit   int      // rows per list; 0 is DefaultLimit
	// Include are the kinds of file hotspots counts although it leaves
	// them out by default (LeftOutKinds, or "all").
	Include []string
}

// Engine keeps the history of one workspace and answers questions.
type Engine struct {
	root     string
	cacheDir string
	bulk     int
	bound    time.Duration // per commit, with rename detection
	declared func() (*workspace.Workspace, error)
	graph    func() *graph.Graph
	now      func() time.Time

	mu      sync.Mutex // one update at a time; guards the fields below
	hist    *History
	results map[string]*Report
	wsStamp *workspace.Workspace
	gStamp  *graph.Graph
	deps    map[[2]string]bool // project pairs with a dependency, either way
	cx      map[string]cxEntry // complexity by path
	projOf  map[string]string  // project by path, for projWS
	projWS  *workspace.Workspace
	owners  *graph.Owners
}

// Options configure an Engine.
type Options struct {
	Root, CacheDir string
	// BulkFiles is the bulk threshold (0: DefaultBulk).
	BulkFiles int
	// Declared is targets.yaml as last loaded.
	Declared func() (*workspace.Workspace, error)
	// Graph is the current knowledge graph, whose declared and inferred
	// project dependencies tell hidden coupling from the expected kind; nil:
	// none (every co-changing pair of projects is hidden coupling).
	Graph func() *graph.Graph
	// CommitBound is how long one commit's diff may take with rename
	// detection before it is read without (0: DefaultCommitBound).
	CommitBound time.Duration
}

// New makes an engine; nothing is read until the first question.
func New(o Options) *Engine {
	if o.BulkFiles <= 0 {
		o.BulkFiles = DefaultBulk
	}
	if o.Graph == nil {
		o.Graph = func() *graph.Graph { return nil }
	}
	if o.CommitBound <= 0 {
		o.CommitBound = DefaultCommitBound
	}
	return &Engine{root: o.Root, cacheDir: o.CacheDir, bulk: o.BulkFiles, bound: o.CommitBound, declared: o.Declared, graph: o.Graph, now: time.Now, results: map[string]*Report{}}
}

// Root is the repository the engine reads.
func (e *Engine) Root() string { return e.root }

func (e *Engine) historyPath() string {
	return filepath.Join(cachedir.Insight(e.cacheDir), "history.gob")
}

// Update brings the kept history up to HEAD: nothing when HEAD has not
// moved, the new commits when it moved forward, everything again when the
// history was rewritten. It reports whether anything changed.
func (e *Engine) Update(ctx context.Context) (bool, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.update(ctx)
}

func (e *Engine) update(ctx context.Context) (bool, error) {
	head, err := gitx.Run(ctx, e.root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return false, err
	}
	if e.hist == nil {
		e.hist = loadHistory(e.historyPath())
	}
	if head.Exit != 0 {
		top, err := gitx.Run(ctx, e.root, "rev-parse", "--git-dir")
		if err != nil {
			return false, err
		}
		if top.Exit != 0 {
			return false, ErrNotRepository
		}
		// A repository with no commit yet: an empty history.
		changed := e.hist == nil || e.hist.Tip != ""
		e.hist = newHistory()
		return changed, nil
	}
	tip := head.Text()
	if e.hist != nil && e.hist.Tip == tip {
		return false, nil
	}
	rng := "HEAD"
	if e.hist != nil && e.hist.Tip != "" {
		anc, err := gitx.Run(ctx, e.root, "merge-base", "--is-ancestor", e.hist.Tip, tip)
		if err != nil {
			return false, err
		}
		if anc.Exit == 0 {
			rng = e.hist.Tip + ".." + tip
		}
	}
	h := e.hist
	cold := rng == "HEAD" || h == nil
	if cold {
		h = newHistory() // cold, or the history was rewritten: read it all
	} else {
		h = h.clone()
	}
	seen := len(h.Commits)
	if _, err := h.read(ctx, e.root, rng, e.bound); err != nil {
		return false, err
	}
	// Complexity is measured again for the files the new commits touch.
	if cold {
		clear(e.cx)
	} else {
		for _, c := range h.Commits[seen:] {
			for _, f := range c.Files {
				delete(e.cx, h.Paths[f])
			}
		}
	}
	h.Tip = tip
	if sh, err := gitx.Run(ctx, e.root, "rev-parse", "--is-shallow-repository"); err == nil {
		h.Shallow = sh.Text() == "true"
	}
	if err := os.MkdirAll(filepath.Dir(e.historyPath()), 0o700); err == nil {
		_ = h.save(e.historyPath()) // a cache: failing to keep it costs a cold read next time
	}
	e.hist = h
	clear(e.results)
	return true, nil
}

// clone copies what an incremental read appends to, so that a failed read
// leaves the kept history as it was.
func (h *History) clone() *History {
	c := *h
	c.Paths = append([]string(nil), h.Paths...)
	c.Authors = append([]string(nil), h.Authors...)
	c.Commits = h.Commits[:len(h.Commits):len(h.Commits)]
	c.Unfollowed = h.Unfollowed[:len(h.Unfollowed):len(h.Unfollowed)]
	c.rebuild()
	return &c
}

// Report answers a question from the history brought up to HEAD.
func (e *Engine) Report(ctx context.Context, p Params) (*Report, error) {
	p, err := p.normalize()
	if err != nil {
		return nil, err
	}
	ws, err := e.declared()
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.update(ctx); err != nil {
		return nil, err
	}
	if ws != e.wsStamp {
		clear(e.results)
		e.wsStamp = ws
	}
	if g := e.graph(); g != e.gStamp {
		e.gStamp = g
		if deps := projectDeps(g); !maps.Equal(deps, e.deps) {
			e.deps = deps
			clear(e.results)
		}
	}
	if p.Project != "" && ws.Project(p.Project) == nil {
		return nil, &ParamError{Msg: fmt.Sprintf("project %q is not declared in targets.yaml", p.Project)}
	}
	now := e.now().UTC()
	key := p.key() + "|" + now.Format("2006-01-02") // windows move with the day
	if r, ok := e.results[key]; ok {
		return r, nil
	}
	r := e.compute(ctx, ws, p, now)
	e.results[key] = r
	return r, nil
}

// ParamError is a question that cannot be asked; its message names the
// parameter and what is allowed.
type ParamError struct{ Msg string }

func (e *ParamError) Error() string { return e.Msg }

func (p Params) normalize() (Params, error) {
	if p.Window == "" {
		p.Window = DefaultWindow
	}
	if _, err := windowStart(p.Window, time.Now()); err != nil {
		return p, err
	}
	switch {
	case p.Limit == 0:
		p.Limit = DefaultLimit
	case p.Limit < 0 || p.Limit > MaxLimit:
		return p, &ParamError{Msg: fmt.Sprintf("limit %d is out of range: 1 to %d", p.Limit, MaxLimit)}
	}
	if len(p.Lenses) == 0 {
		p.Lenses = Lenses
	}
	inc, err := parseInclude(p.Include)
	if err != nil {
		return p, err
	}
	p.Include = inc
	for _, l := range p.Lenses {
		if !contains(Lenses, l) {
			return p, &ParamError{Msg: fmt.Sprintf("lens %q is unknown: %s", l, strings.Join(Lenses, ", "))}
		}
	}
	return p, nil
}

func (p Params) key() string {
	return strings.Join(p.Lenses, ",") + "|" + p.Window + "|" + p.Project + "|" + fmt.Sprint(p.Limit) + "|" + strings.Join(p.Include, ",")
}

// windowStart is the first instant a window counts ("all": the zero time).
func windowStart(w string, now time.Time) (time.Time, error) {
	bad := &ParamError{Msg: fmt.Sprintf("window %q is not a window: 90d, 1y, all, or a number of days such as 30d", w)}
	switch {
	case w == "all":
		return time.Time{}, nil
	case strings.HasSuffix(w, "y"):
		n, err := parsePositive(strings.TrimSuffix(w, "y"), 50)
		if err != nil {
			return time.Time{}, bad
		}
		return now.AddDate(-n, 0, 0), nil
	case strings.HasSuffix(w, "d"):
		n, err := parsePositive(strings.TrimSuffix(w, "d"), 36500)
		if err != nil {
			return time.Time{}, bad
		}
		return now.AddDate(0, 0, -n), nil
	}
	return time.Time{}, bad
}

func parsePositive(s string, max int) (int, error) {
	n := 0
	if s == "" || len(s) > 6 {
		return 0, errors.New("bad")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, errors.New("bad")
		}
		n = n*10 + int(c-'0')
	}
	if n < 1 || n > max {
		return 0, errors.New("bad")
	}
	return n, nil
}

// projectDeps is every pair of projects with a declared or inferred
// dependency, in both orders.
func projectDeps(g *graph.Graph) map[[2]string]bool {
	deps := map[[2]string]bool{}
	if g == nil {
		return deps
	}
	for _, e := range g.Edges {
		if e.Kind != graph.EdgeDependsDeclared && e.Kind != graph.EdgeDependsInferred {
			continue
		}
		a, b := strings.TrimPrefix(e.Source, "project:"), strings.TrimPrefix(e.Target, "project:")
		deps[[2]string{a, b}], deps[[2]string{b, a}] = true, true
	}
	return deps
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
