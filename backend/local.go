package backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/insight"
	"github.com/corehq/core/internal/live"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/remotecache"
	"github.com/corehq/core/internal/review"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/suggest"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// Local is the backend of one CLI command that needs no server: the same
// rules over a one-shot view of the workspace (read, indexed warm from the
// cache directory, answered, gone). A command that needs the server talks
// to it over its API instead.
type Local struct {
	root, cacheDir string
	cfg            *config.Config
}

// Open is the in-process backend of the workspace at root, caching in
// cacheDir, configured by cfg.
func Open(root, cacheDir string, cfg *config.Config) *Local {
	return &Local{root: root, cacheDir: cacheDir, cfg: cfg}
}

// Root is the workspace root.
func (l *Local) Root() string { return l.root }

// CacheDir is the workspace's cache directory.
func (l *Local) CacheDir() string { return l.cacheDir }

// Workspace is targets.yaml as it is now, without what the index infers.
func (l *Local) Workspace() (*workspace.Workspace, error) { return workspace.Load(l.root) }

// Resolved is the workspace with the dependencies its code's imports
// imply, read by the index (warm from the cache directory): what a run's
// keys and an affected set need. When the index cannot be read it comes
// back whole with a warning (error) beside it: every project then counts
// as a dependency of every other.
func (l *Local) Resolved() (*workspace.Workspace, error) { return live.Resolved(l.root, l.cacheDir) }

// GraphJSON writes the knowledge graph's encoding to w: exactly the bytes
// of GET /api/v1/graph, served from the cache when nothing changed.
func (l *Local) GraphJSON(w io.Writer) error { return live.BuildJSON(l.root, l.cacheDir, w) }

// Graph is the knowledge graph.
func (l *Local) Graph() (*graph.Graph, error) {
	g, _, err := live.Build(l.root, l.cacheDir)
	return g, err
}

// TargetGraph is the target graph (what GET /api/v1/graph?flavor=targets
// serves).
func (l *Local) TargetGraph() (*graph.Graph, error) {
	ws, err := l.Workspace()
	if err != nil {
		return nil, err
	}
	return graph.Targets(ws), nil
}

// Query is the neighbourhood that q selects (what GET
// /api/v1/graph?select= serves).
func (l *Local) Query(q *query.Query) (*graph.Graph, error) {
	g, ix, err := live.Build(l.root, l.cacheDir)
	if err != nil {
		return nil, err
	}
	return live.Eval(query.NewIndex(g), ix, q)
}

// Select turns a run's arguments into target ids: PROJECT:TARGET as it
// is, a bare TARGET in every project that declares it, and globs
// (path.Match syntax) on either side; projectGlob filters the projects.
func Select(ws *workspace.Workspace, args []string, projectGlob string) ([]string, error) {
	if projectGlob != "" {
		if _, err := path.Match(projectGlob, ""); err != nil {
			return nil, fmt.Errorf("--projects %q is not a glob: %v", projectGlob, err)
		}
	}
	keep := func(p string) bool {
		ok, _ := path.Match(projectGlob, p)
		return projectGlob == "" || ok
	}
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for _, a := range args {
		proj, target, qualified := strings.Cut(a, ":")
		if !qualified {
			proj, target = "*", a
		}
		if !qualified || strings.ContainsAny(a, "*?[") {
			if _, err := path.Match(proj, ""); err != nil {
				return nil, fmt.Errorf("%q is not a glob: %v", a, err)
			}
			if _, err := path.Match(target, ""); err != nil {
				return nil, fmt.Errorf("%q is not a glob: %v", a, err)
			}
			n := 0
			for _, p := range ws.Projects {
				if ok, _ := path.Match(proj, p.Name); !ok || !keep(p.Name) {
					continue
				}
				for _, t := range p.Targets {
					if ok, _ := path.Match(target, t.Name); ok {
						add(t.ID())
						n++
					}
				}
			}
			if n == 0 {
				candidates := ws.TargetIDs()
				if !qualified {
					candidates = nil
					for _, id := range ws.TargetIDs() {
						if _, name, _ := strings.Cut(id, ":"); !slices.Contains(candidates, name) {
							candidates = append(candidates, name)
						}
					}
				}
				return nil, fmt.Errorf("%s matches no declared target%s%s; core describe graph lists them", a, projectsNote(projectGlob), suggest.DidYouMean(a, candidates))
			}
			continue
		}
		if !keep(proj) {
			return nil, fmt.Errorf("%s is outside --projects %q", a, projectGlob)
		}
		add(a)
	}
	return out, nil
}

func projectsNote(glob string) string {
	if glob == "" {
		return ""
	}
	return " in projects matching " + strconv.Quote(glob)
}

// Changes are what a change against a base touches, for the CLI: the set
// and the reasons, and the files.
type Changes struct {
	Set     affected.Set
	Reasons affected.Reasons
}

// Affected is what the change against base (the default branch when "")
// affects, over ws (Resolved).
func (l *Local) Affected(ctx context.Context, ws *workspace.Workspace, base string) (Changes, error) {
	changed, err := affected.Changed(ctx, l.root, base)
	if err != nil {
		return Changes{}, err
	}
	set, why := affected.Explain(ws, changed)
	return Changes{Set: set, Reasons: why}, nil
}

// DefaultBase is the branch a change is compared against when no base is
// given: origin/HEAD's, else main, else master ("" when none).
func (l *Local) DefaultBase(ctx context.Context) string {
	b, _ := affected.DefaultBase(ctx, l.root)
	return b
}

// AffectedTargets are the targets named target that the change against
// base affects (exactly those whose keys it moved), over ws.
func (l *Local) AffectedTargets(ctx context.Context, ws *workspace.Workspace, base, target string) ([]string, Changes, error) {
	if err := checkAffectedName(ws, target); err != nil {
		return nil, Changes{}, fmt.Errorf("--affected: %w (core describe graph lists the targets)", err)
	}
	ch, err := l.Affected(ctx, ws, base)
	if err != nil {
		return nil, Changes{}, err
	}
	return affectedNamed(ch.Set.Targets, target), ch, nil
}

// RunOptions say how a CLI run goes.
type RunOptions struct {
	Capacity int
	Trigger  string // cli (default) or affected
	Events   func(runner.Event)
	Output   io.Writer
	Cache    runner.CacheMode
	Remote   *remotecache.Client
	Warn     func(string)
	// Shard and ShardPlan name the CI shard the run is (core run --shard)
	// in its journals.
	Shard, ShardPlan string
}

// Runner is a runner of the workspace's targets for one CLI command.
func (l *Local) Runner(o RunOptions) *runner.Runner {
	ro := runner.Options{Root: l.root, CacheDir: l.cacheDir, Capacity: o.Capacity, Trigger: o.Trigger, Output: o.Output, Cache: o.Cache, Remote: o.Remote, Warn: o.Warn, Shard: o.Shard, ShardPlan: o.ShardPlan}
	if o.Events != nil {
		ro.Observer = runner.Events(o.Events)
	}
	if l.cfg != nil {
		ro.EnvMode = l.cfg.EnvMode
	}
	return runner.New(ro)
}

// CacheModeOf is the runner's cache mode of the flags: --force refreshes,
// --no-cache neither reads nor writes.
func CacheModeOf(force, noCache bool) runner.CacheMode {
	switch {
	case force:
		return runner.CacheRefresh
	case noCache:
		return runner.CacheOff
	}
	return runner.CacheUse
}

// TrimJournals keeps the run log bounded when no server rotates it.
// It trims when the log is a quarter over its cap: a trim reads the
// batches, and the end of every run would pay for it.
func (l *Local) TrimJournals() {
	_, _ = runner.TrimJournalsOver(l.cacheDir, runner.DefaultJournalCap, runner.DefaultJournalCap/4)
}

// Runs are the latest runs of target ("" for all), at most limit (0: all).
func (l *Local) Runs(limit int, target string) ([]runner.Journal, error) {
	return runner.ListJournals(l.cacheDir, limit, target)
}

// Journal is run id's journal: an id, or a unique prefix of one, or
// "last".
func (l *Local) Journal(ref string) (runner.Journal, error) {
	id, err := runner.ResolveID(l.cacheDir, ref)
	if err != nil {
		return runner.Journal{}, err
	}
	j, err := runner.ReadJournal(l.cacheDir, id)
	if errors.Is(err, runner.ErrNotFound) {
		return j, apierr.NotFound("no run %s: it may have been rotated out; `core runs` lists what is kept", id)
	}
	return j, err
}

// KeyParts are what the keys of runs a and b were made of, as each run
// recorded them: why one rebuilt.
func (l *Local) KeyParts(a, b string) (runner.KeyParts, runner.KeyParts, error) {
	parts := make([]runner.KeyParts, 2)
	for i, ref := range []string{a, b} {
		id, err := runner.ResolveID(l.cacheDir, ref)
		if err != nil {
			return parts[0], parts[1], err
		}
		j, err := runner.ReadJournal(l.cacheDir, id)
		if err != nil {
			return parts[0], parts[1], fmt.Errorf("run %s: %w (core runs lists what is kept)", id, err)
		}
		if j.CacheKey == "" {
			return parts[0], parts[1], fmt.Errorf("run %s has no cache key (it did not get as far as hashing its inputs)", id)
		}
		if parts[i], err = runner.RecordedParts(l.cacheDir, j.CacheKey); err != nil {
			return parts[0], parts[1], fmt.Errorf("the parts of run %s's key (%s) were not recorded: a run records them when it executes, not when the cache serves it; run core hash --diff with two runs that executed", id, j.CacheKey[:12])
		}
	}
	return parts[0], parts[1], nil
}

// RemoteCache is the remote cache the configuration names (nil when none).
func (l *Local) RemoteCache(getenv func(string) string) (*remotecache.Client, error) {
	return RemoteCache(l.cfg, getenv)
}

// RemoteCache is the client of the remote cache cfg names (nil, nil when
// it names none), with the credential read from the environment variable
// cache.remote.header_env names (never from a file).
func RemoteCache(cfg *config.Config, getenv func(string) string) (*remotecache.Client, error) {
	rc := cfg.Cache.Remote
	if rc.URL == "" {
		return nil, nil
	}
	value := ""
	switch {
	case rc.Header == "" && rc.HeaderEnv == "":
	case rc.Header == "" || rc.HeaderEnv == "":
		return nil, errors.New("cache.remote.header and cache.remote.header_env go together: the header's name, and the environment variable holding its value (e.g. Authorization and CORE_CACHE_TOKEN)")
	default:
		if value = getenv(rc.HeaderEnv); value == "" {
			return nil, fmt.Errorf("the remote cache's credential is missing: cache.remote.header_env names %s, which is not set; export it (e.g. %s='Bearer …'), or unset cache.remote.header", rc.HeaderEnv, rc.HeaderEnv)
		}
	}
	return remotecache.New(remotecache.Config{
		URL: rc.URL, Mode: rc.Mode, Header: rc.Header, HeaderValue: value,
		Timeout: rc.Timeout, Parallelism: rc.Parallelism,
	})
}

// Review is the review area in-process: the page over a one-shot index,
// and the session's writes through the same store a server uses. warn
// hears a warning the workspace's imports gave.
func (l *Local) Review(warn func(string)) *Review {
	sessions := reviewstate.NewStore(l.cacheDir)
	return &Review{root: l.root, sessions: sessions, src: func() review.Source {
		_, ix, err := live.Build(l.root, l.cacheDir)
		if err != nil {
			ix = nil // the page then has no symbols; Declared says why
		}
		return review.Source{
			Root: l.root,
			Declared: func() (*workspace.Workspace, error) {
				ws, err := l.Resolved()
				if ws != nil && err != nil {
					if warn != nil {
						warn(err.Error())
					}
					err = nil
				}
				return ws, err
			},
			Index:    ix,
			Sessions: sessions,
		}
	}}
}

// ReviewPage is the annotated change against base, with the review
// session, read in-process (the server's GET /api/v1/diff answers the
// same page).
func (l *Local) ReviewPage(ctx context.Context, base string, warn func(string)) (review.Page, error) {
	p, _, err := l.Review(warn).Page(ctx, base)
	return p, err
}

// WritePatch writes the change against base as one unified patch.
func (l *Local) WritePatch(ctx context.Context, w io.Writer, base string) error {
	return reviewError(diff.WritePatch(ctx, w, l.root, base))
}

// Insight answers the lenses p asks for, over the workspace's history.
func (l *Local) Insight(ctx context.Context, p insight.Params) (*insight.Report, error) {
	ws, err := l.Workspace()
	if err != nil {
		return nil, err
	}
	gr, _, gerr := live.Build(l.root, l.cacheDir)
	e := insight.New(insight.Options{
		Root: l.root, CacheDir: l.cacheDir, BulkFiles: l.cfg.Insight.BulkFiles,
		Declared: func() (*workspace.Workspace, error) { return ws, nil },
		Graph: func() *graph.Graph {
			if gerr != nil {
				return nil
			}
			return gr
		},
	})
	return reportHere(ctx, e, p)
}

// reportHere is an engine's report, an error naming where it looked for
// git history.
func reportHere(ctx context.Context, e *insight.Engine, p insight.Params) (*insight.Report, error) {
	rep, err := e.Report(ctx, p)
	if errors.Is(err, insight.ErrNotRepository) {
		return nil, fmt.Errorf("%w (here: %s)", err, e.Root())
	}
	return rep, insightError(err)
}

// RepositoryOf is the top directory of the git repository holding dir.
func RepositoryOf(ctx context.Context, dir string) (string, error) {
	top, err := gitx.Output(ctx, dir, "rev-parse", "--show-toplevel")
	return strings.TrimSpace(top), err
}

// InsightOf answers the lenses p asks for over any git repository at root
// (outside a workspace), its history kept in cacheDir.
func InsightOf(ctx context.Context, root, cacheDir string, p insight.Params) (*insight.Report, error) {
	e := insight.New(insight.Options{
		Root: root, CacheDir: cacheDir, BulkFiles: config.Defaults().Insight.BulkFiles,
		Declared: func() (*workspace.Workspace, error) { return &workspace.Workspace{Root: root}, nil },
	})
	return reportHere(ctx, e, p)
}

// Scaffold finds the projects of the repository at root and writes a
// targets.yaml for them, with what their tools usually need of the
// environment at the top: what core init offers.
func Scaffold(root string) (*workspace.Scaffolding, error) {
	return workspace.Scaffold(root, workspace.ScaffoldOptions{Environment: targetenv.Section, Runs: runsAsATarget})
}

// runsAsATarget reports whether argv exits 0 in dir within 20 seconds,
// run in the environment a target gets in strict mode with what core init
// writes of the environment: whether a target core init would write can
// run here (python3 imports pytest, ruff is installed).
func runsAsATarget(dir string, argv ...string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	u := targetenv.UsualFor(targetenv.ToolGo, targetenv.ToolNode, targetenv.ToolPython)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = targetenv.New(targetenv.Strict, nil).For(dir, u.Env, u.Pass)
	cmd.WaitDelay = time.Second
	return cmd.Run() == nil
}

// WriteFile writes a file whole or not at all: a temporary file beside it,
// synced, renamed over it.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return fsx.WriteFileAtomic(path, data, perm)
}

// TuneGC lets the indexers of this process set the garbage collector's
// target and the soft memory limit while they index (setGC is
// debug.SetGCPercent, setLimit debug.SetMemoryLimit): the process's
// owner, main, says so, since it changes the whole process.
func TuneGC(setGC func(percent int) int, setLimit func(limit int64) int64) {
	live.GC = index.GC{Percent: setGC, Limit: setLimit}
}

// ForThroughput tunes the garbage collector, as TuneGC allows, for a
// command that keeps most of what it allocates and ends soon (core run),
// until the returned func restores it (index.Throughput).
func ForThroughput() (restore func()) { return index.Throughput(live.GC) }

// ReportIndexing tells report of each index pass a command makes (the
// server's own say so in its log): it is called as the pass starts, with
// what reads how far it has come, and what it answers is called when the
// pass ends. The process's owner, main, says where a person sees it.
func ReportIndexing(report func(progress func() IndexProgress) (stop func())) { live.OnIndex = report }

// IndexProgress is how far an index pass has come.
type IndexProgress = index.Progress

// The phases of an index pass (IndexProgress.Phase).
const (
	IndexParsing    = index.PhaseParsing
	IndexAssembling = index.PhaseAssembling
	IndexDone       = index.PhaseDone
)
