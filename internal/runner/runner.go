// Package runner runs a workspace's targets: in dependency order, each at
// most once per run, in one bounded pool shared by every run of a Runner,
// with a content-addressed build cache and a journal per run that the
// viewer serves.
//
// # Pool capacity
//
// Capacity follows the spec: CORE_CONCURRENCY when set (1 to 1024), else 4
// on a hosted CI runner, else min(CPU count, 8). Hosted CI is recognised
// from the environment for two services that say whether their machine is
// their own or the user's:
//
//   - GitHub Actions: GITHUB_ACTIONS=true and RUNNER_ENVIRONMENT is not
//     "self-hosted" (GitHub-hosted runners set "github-hosted"; runners too
//     old to set it were GitHub's own);
//   - Azure Pipelines: TF_BUILD=True and AGENT_ISSELFHOSTED=0
//     (Microsoft-hosted agents; self-hosted ones set 1).
//
// Other services (CircleCI, GitLab CI, ...) are treated as ordinary
// machines: we found no documented variable that tells their cloud
// machines from self-hosted runners, and guessing wrong would cap a big
// self-hosted box at 4. Set CORE_CONCURRENCY there.
//
// The pool bounds processes: a target holds a slot only while its command
// runs. Hashing inputs, looking up the cache and replaying a hit happen
// outside it, so a run of cached targets is not throttled by a pool sized
// for compilers.
//
// # Build cache
//
// A target's key is sha256 over a versioned, length-prefixed encoding of
// its declaration, its project path, what it reads (package inputs says
// what: its own inputs, the files above its project it takes, its //
// inputs, the global inputs, and the inputs of the projects its project
// depends on), each file with its content hash and an executable bit, and
// the keys of its dependencies in order (key.go). Symlinks to files count
// by their content, other symlinks by their target. Of the environment
// only the variables it declares (env:, its own and the top level's) are
// in the key, with the mode; in strict mode (package targetenv, env.go)
// they, the pass_env: variables and the base are all its process gets.
// Inputs are hashed after
// the target's dependencies finish, so files a dependency generates count.
// Only successful runs are cached, under <cache>/build/<key>/ (meta.json,
// outputs.tar); see cache.go. A hit replays the captured output, restores
// the declared outputs (remove, then extract; skipped when they are on
// disk exactly as recorded: same paths, types, modes, sizes and
// modification times) and reports "cached".
//
// Two runs never run the same target at once, whether they are runs of one
// Runner or of two processes on one cache directory (the CLI next to the
// server): a per-target lock, in memory and as a file lock under
// <cache>/locks, makes the second wait, and it then usually hits the cache.
//
// # Journals
//
// Each run of a target writes <cache>/runs/<id>.json (atomically, fsynced)
// when it starts ("running") and when it ends. The cache hits of one
// Run are written together, as one file <first id>--<last id>.json, when
// the Run ends: their ids are in the events and the Result at once, and
// readable (ListJournals, ReadJournal) when Run returns. A file per hit
// would cost more than hashing the inputs of a no-op run. StartAll
// promises an id per target up front: their "queued" journals are written
// with one flush for all (runlog.WriteAll), and a hit's own journal is
// replaced at once and made durable with the run's other hits at its end.
// Targets that never start (a dependency failed, the run was cancelled)
// get no journal; their state is in the Result and the events.
//
// # When core dies mid-run
//
// A target's command runs in its own process group (see execx), which is
// killed on every way out of its run that core controls: the command's
// exit, a cancel, a panic. When core is killed outright (kill -9, the OOM
// killer), the kernel kills the command itself (Pdeathsig, Linux), but not
// the command's children, and the target's lock dies with core. So the
// running journal records the command's pid (its process group) and start
// time as soon as it starts, and so does a mark beside the target's lock
// file (orphan.go). The next run of the target, once it holds the lock,
// reads the mark: if that group is still alive and its core process is
// not, it ends the group (SIGTERM, SIGKILL after execx.KillGrace), waits
// until it is gone, marks that journal "interrupted", and only then runs.
// It ends the orphan rather than wait for it: the orphan's result can no
// longer be recorded or cached, so the target runs again anyway, and the
// orphan may never end by itself. It never runs beside it: an orphan that
// cannot be ended fails the target. Between the fork and the mark lies a
// moment in which a crash leaves the command's children unrecorded.
//
// ListJournals and ReadJournal report a "running" or "queued" journal whose
// core process is gone as "interrupted" when they read it;
// RecoverInterrupted writes that down when a server starts.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/execx"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/remotecache"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

// Options configure a Runner.
type Options struct {
	Root, CacheDir string
	Capacity       int       // pool size; <= 0 picks Capacity(0, os.Getenv)
	Trigger        string    // cli, console, affected, job, mcp (default cli); StartAll may name another
	Observer       Observer  // optional: hears every state change and every run's start and end
	Output         io.Writer // optional live copy of each target's output, prefixed "[project:target] "
	// Cache says how runs use the build cache: CacheUse (the default: a hit
	// is replayed, a success stored), CacheRefresh (run anyway, store the
	// result: --force) or CacheOff (neither read nor written: --no-cache).
	Cache CacheMode
	// Remote is the shared cache behind the local one (nil: none). A local
	// miss asks it; in read-write mode a target that ran is uploaded (see
	// remote.go). CacheRefresh uploads without asking; CacheOff leaves it
	// alone.
	Remote *remotecache.Client
	// Warn hears what a run carries on despite (the remote cache is down,
	// an entry was corrupt). Optional; called from the runner's goroutines.
	Warn func(string)
	// EnvMode is what reaches a target's process of core's environment:
	// targetenv.Strict (also when empty) or targetenv.Loose. It is in
	// every key.
	EnvMode string
	// Environ is core's environment, which a run reads once when it
	// starts (nil: os.Environ()).
	Environ []string
	// Shard and ShardPlan go into every journal: the CI shard this run is
	// ("2/4") and its plan's digest (package shard). Empty outside CI.
	Shard, ShardPlan string
}

// Where a target's result came from, as journals, events and results say.
const (
	FromBuilt  = "built"  // its command ran
	FromLocal  = "local"  // this machine's cache
	FromRemote = "remote" // the remote cache
)

// CacheMode is how a Runner uses the build cache.
type CacheMode uint8

const (
	CacheUse CacheMode = iota
	CacheRefresh
	CacheOff
)

// Observer hears what a Runner does. Its methods are called from the
// runner's goroutines and must be cheap. A server keeps its books on runs
// (counters, the activity trail) in one Observer; the CLI shows progress
// with Events.
type Observer interface {
	// Event is one target's state change.
	Event(Event)
	// RunStarted is a Run or Start that has planned its targets.
	RunStarted(Request)
	// RunEnded is its end, with the outcome of every target it planned.
	RunEnded(Request, *Result)
}

// Request is what a Run or Start was asked for.
type Request struct {
	Targets []string // as given, "project:target"
	ID      string   // the run id Start promised for its target; "" for Run
}

// Events is an Observer of target state changes alone: what a progress
// display needs.
type Events func(Event)

// Event calls f.
func (f Events) Event(e Event) { f(e) }

// RunStarted does nothing.
func (Events) RunStarted(Request) {}

// RunEnded does nothing.
func (Events) RunEnded(Request, *Result) {}

// noObserver hears nothing.
type noObserver struct{}

func (noObserver) Event(Event)               {}
func (noObserver) RunStarted(Request)        {}
func (noObserver) RunEnded(Request, *Result) {}

// Event is a target's state change.
type Event struct {
	Target   string
	State    string
	RunID    string // the journal, once there is one
	Cached   bool
	From     string // for a cached target: FromLocal or FromRemote
	ExitCode int
	Err      string
	Time     time.Time
}

// Result is the outcome of a Run: every target it planned, dependencies
// first (ties by id).
type Result struct {
	Targets []TargetResult
	Remote  RemoteStats // what the remote cache served and was sent
}

// TargetResult is one target's outcome.
type TargetResult struct {
	Target, Status, RunID, CacheKey string
	From                            string // FromBuilt, FromLocal, FromRemote; "" when it did not run
	ExitCode                        int
	Duration                        time.Duration
	Err                             string
	// Withheld names, for a target that failed in strict mode, the
	// variables of core's environment it did not get and may have needed
	// (targetenv.Hints).
	Withheld []targetenv.Hint
}

// Failed reports whether any target did not succeed (failed, interrupted
// or skipped).
func (r *Result) Failed() bool {
	for _, t := range r.Targets {
		if t.Status != StateSucceeded && t.Status != StateCached {
			return true
		}
	}
	return false
}

// Interrupted reports whether the run was cut short by its context.
func (r *Result) Interrupted() bool {
	for _, t := range r.Targets {
		if t.Status == StateInterrupted || t.Status == StateSkipped {
			return true
		}
	}
	return false
}

// Count returns how many targets ended in state.
func (r *Result) Count(state string) int {
	n := 0
	for _, t := range r.Targets {
		if t.Status == state {
			n++
		}
	}
	return n
}

// PoolStats is the pool's load: Running targets hold a slot; Queued ones
// are planned by a run and have not started (waiting for dependencies, a
// slot, or their turn at the cache).
type PoolStats struct {
	Capacity int `json:"capacity"`
	Running  int `json:"running"`
	Queued   int `json:"queued"`
}

// Runner runs targets. It is safe for concurrent Run calls, which share
// one pool.
type Runner struct {
	opts    Options
	slots   chan struct{}
	hashing chan struct{} // bounds targets hashing their inputs at once
	live    *lockedWriter

	running, queued atomic.Int64
	inflight        sync.WaitGroup // Run and Start calls not yet finished

	mu     sync.Mutex
	states map[string]string
	locks  map[string]chan struct{} // per target id: one execution at a time
}

// New returns a Runner.
func New(o Options) *Runner {
	if o.Capacity <= 0 {
		o.Capacity, _ = Capacity(0, os.Getenv)
	}
	if o.Trigger == "" {
		o.Trigger = "cli"
	}
	o.EnvMode = targetenv.Normalize(o.EnvMode)
	if o.Observer == nil {
		o.Observer = noObserver{}
	}
	r := &Runner{
		opts:    o,
		slots:   make(chan struct{}, o.Capacity),
		hashing: make(chan struct{}, hashWorkers),
		states:  map[string]string{},
		locks:   map[string]chan struct{}{},
	}
	if o.Output != nil {
		r.live = &lockedWriter{w: o.Output}
	}
	return r
}

// States returns the last known state of every target this Runner has
// planned.
func (r *Runner) States() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]string, len(r.states))
	for k, v := range r.states {
		out[k] = v
	}
	return out
}

// EnvMode is what of core's environment reaches the targets it runs:
// targetenv.Strict or targetenv.Loose.
func (r *Runner) EnvMode() string { return r.opts.EnvMode }

// Stats returns the pool's capacity and load.
func (r *Runner) Stats() PoolStats {
	return PoolStats{Capacity: r.opts.Capacity, Running: int(r.running.Load()), Queued: int(r.queued.Load())}
}

// node is one target of a run.
type node struct {
	t      *workspace.Target
	p      *workspace.Project
	deps   []*node
	done   chan struct{}
	res    TargetResult
	key    string
	in     keyInputs  // what the key hashed, for its recorded parts
	queued bool       // still counted in r.queued
	hits   *hitBatch  // the run's cache-hit journals
	remote *remoteRun // the run's remote cache (nil: none)
	keys   *keyer     // the run's hashing
	cache  CacheMode  // how the run uses the build cache
	// planned is what a dry run says of it (Plan, Explain).
	planned Planned
	// preset is the run id the caller was promised for this target (Start);
	// its journal exists from submission and always gets the final status.
	// presetAt is when it was submitted: the journal's start time, so that
	// ids and start times sort alike.
	preset   string
	presetAt time.Time
	// trigger is who started the run, when not the Runner's own
	// (StartAll's caller: an agent's run is "mcp" on a console's server).
	trigger string
}

// Run runs targets ("project:target") and their dependencies, transitively,
// each once, dependencies first. Target failures are in the Result, not
// the error; the error is for a run that cannot start (an unknown target,
// an unusable cache directory), or whose cache-hit journals could not be
// written (then the Result comes back too). A cancelled ctx kills running
// processes (their journals say "interrupted") and skips what has not
// started.
func (r *Runner) Run(ctx context.Context, ws *workspace.Workspace, targets []string) (*Result, error) {
	order, err := r.prepare(ws, targets)
	if err != nil {
		return nil, err
	}
	r.inflight.Add(1)
	defer r.inflight.Done()
	req := Request{Targets: targets}
	r.opts.Observer.RunStarted(req)
	res, err := r.runPlanned(ctx, ws, order, r.opts.Cache)
	if res != nil {
		r.opts.Observer.RunEnded(req, res)
	}
	return res, err
}

// Start submits one target (and its dependencies) and returns at once with
// the run id its journal will carry: the journal exists, "queued", before
// Start returns, so the run is visible to the viewer straight away. done
// receives the Result when the run ends.
func (r *Runner) Start(ctx context.Context, ws *workspace.Workspace, target string) (string, <-chan *Result, error) {
	ids, done, err := r.StartAll(ctx, ws, []string{target}, r.opts.Cache, "")
	return ids[target], done, err
}

// StartAll is Start of several targets as one run (their dependencies
// each once, in one pool), using the build cache as mode says (a caller's
// --force is CacheRefresh) whatever the Runner's own mode: the run id of
// each target asked for, its journal written before StartAll returns.
// trigger names who started it in the journals ("": the Runner's Trigger).
func (r *Runner) StartAll(ctx context.Context, ws *workspace.Workspace, targets []string, mode CacheMode, trigger string) (map[string]string, <-chan *Result, error) {
	if ctx.Err() != nil {
		return nil, nil, fmt.Errorf("run: not started: %w", context.Cause(ctx))
	}
	order, err := r.prepare(ws, targets)
	if err != nil {
		return nil, nil, err
	}
	ids := make(map[string]string, len(targets))
	now := time.Now()
	var queued []*Journal
	for _, n := range order {
		n.trigger = trigger
		if !slices.Contains(targets, n.t.ID()) {
			continue
		}
		n.preset, n.presetAt = newRunID(now), now
		queued = append(queued, r.journal(n, n.preset, now, StateQueued))
		ids[n.t.ID()] = n.preset
	}
	// One flush for them all: two fsyncs a journal were most of a cached
	// run of fifty targets.
	if err := writeJournals(r.opts.CacheDir, queued); err != nil {
		return nil, nil, fmt.Errorf("run: journal: %w", err)
	}
	req := Request{Targets: targets}
	if len(targets) == 1 {
		req.ID = ids[targets[0]]
	}
	r.opts.Observer.RunStarted(req)
	done := make(chan *Result, 1)
	r.inflight.Add(1)
	go func() {
		defer r.inflight.Done()
		ok := false
		defer killGroupsOnPanic(&ok)
		res, _ := r.runPlanned(ctx, ws, order, mode)
		r.opts.Observer.RunEnded(req, res)
		done <- res
		ok = true
	}()
	return ids, done, nil
}

// planChecked plans targets and checks what can be checked before anything
// runs (the package.json scripts the argvs name); it returns the order and
// the workspace root.
func (r *Runner) planChecked(ws *workspace.Workspace, targets []string) ([]*node, string, error) {
	if len(targets) == 0 {
		return nil, "", errors.New("run: no targets given: name at least one as PROJECT:TARGET")
	}
	order, err := plan(ws, targets)
	if err != nil {
		return nil, "", err
	}
	root := r.opts.Root
	if root == "" {
		root = ws.Root
	}
	if err := checkScripts(root, order); err != nil {
		return nil, "", err
	}
	return order, root, nil
}

// prepare validates and plans a run and readies the cache directory.
func (r *Runner) prepare(ws *workspace.Workspace, targets []string) ([]*node, error) {
	order, _, err := r.planChecked(ws, targets)
	if err != nil {
		return nil, err
	}
	if r.opts.CacheDir == "" {
		return nil, errors.New("run: no cache directory configured")
	}
	if err := fsx.EnsureCacheDir(r.opts.CacheDir); err != nil {
		return nil, err
	}
	for _, d := range []string{runsDir(r.opts.CacheDir), buildDir(r.opts.CacheDir), locksDir(r.opts.CacheDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("run: create %s: %w", d, err)
		}
	}
	removeStaleStaging(r.opts.CacheDir)
	return order, nil
}

// Wait blocks until every run of this Runner has ended: after cancelling
// their context, a server waits here so that its runs' journals say
// "interrupted" and their processes are gone before it exits.
func (r *Runner) Wait() { r.inflight.Wait() }

// runPlanned runs planned nodes to the end.
func (r *Runner) runPlanned(ctx context.Context, ws *workspace.Workspace, order []*node, mode CacheMode) (*Result, error) {
	root := r.opts.Root
	if root == "" {
		root = ws.Root
	}
	keys := newKeyer(ctx, ws, root, r.opts.CacheDir, targetenv.New(r.opts.EnvMode, r.opts.Environ))

	now := time.Now()
	hits := &hitBatch{cacheDir: r.opts.CacheDir}
	var remote *remoteRun
	if mode != CacheOff {
		remote = newRemoteRun(ctx, r.opts.Remote, r.opts.Warn)
	}
	r.queued.Add(int64(len(order)))
	for _, n := range order {
		n.queued = true
		n.cache = mode
		n.hits = hits
		n.remote = remote
		n.keys = keys
		n.res = TargetResult{Target: n.t.ID(), Status: StateQueued}
		r.emit(Event{Target: n.t.ID(), State: StateQueued, Time: now})
	}
	var wg sync.WaitGroup
	for _, n := range order {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(n.done)
			ok := false
			defer killGroupsOnPanic(&ok)
			if keys.globalErr != nil && ctx.Err() == nil {
				<-r.depsDone(n)
				r.finish(n, StateFailed, "", -1, "global inputs: "+keys.globalErr.Error(), 0)
				r.dequeue(n)
				ok = true
				return
			}
			r.runNode(ctx, root, n)
			r.dequeue(n)
			ok = true
		}()
	}
	wg.Wait()
	res := &Result{Targets: make([]TargetResult, len(order)), Remote: remote.end()}
	for i, n := range order {
		res.Targets[i] = n.res
	}
	if err := hits.flush(); err != nil {
		return res, fmt.Errorf("run: write the journals of cache hits: %w", err)
	}
	return res, nil
}

// killGroupsOnPanic, deferred at the top of a goroutine of the runner with
// *ok set as its last statement, sees a panic (or runtime.Goexit) go by. A
// panic there ends the process: before it does, every process group core
// has started is killed (execx.KillAllGroups), since Pdeathsig would end
// their first processes but not their children.
func killGroupsOnPanic(ok *bool) {
	if !*ok {
		execx.KillAllGroups()
	}
}

// hitBatchMax is how many cache-hit journals wait before they are written.
const hitBatchMax = 1000

// hitBatch collects a run's cache-hit journals and writes them as one file
// (see journal.go): at the end of the run, or when it holds hitBatchMax of
// them or 8 MiB of output.
type hitBatch struct {
	cacheDir string
	mu       sync.Mutex
	pending  []Journal
	bytes    int
	err      error
	// replaced are the ids of the hits whose own journals (promised by
	// StartAll) were replaced without a sync: flush syncs them at once.
	replaced []string
}

// replace writes the journal of a hit whose id was promised, unsynced;
// flush makes it durable.
func (b *hitBatch) replace(j *Journal) {
	err := replaceJournal(b.cacheDir, j)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		if b.err == nil {
			b.err = err
		}
		return
	}
	b.replaced = append(b.replaced, j.ID)
}

func (b *hitBatch) add(j Journal) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pending = append(b.pending, j)
	b.bytes += len(j.Output) + 512
	if len(b.pending) >= hitBatchMax || b.bytes >= 8<<20 {
		b.flushLocked()
	}
}

func (b *hitBatch) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.flushLocked()
	return b.err
}

func (b *hitBatch) flushLocked() {
	if len(b.replaced) > 0 {
		if err := syncJournals(b.cacheDir, b.replaced...); err != nil && b.err == nil {
			b.err = err
		}
		b.replaced = nil
	}
	if len(b.pending) == 0 {
		return
	}
	if err := writeBatch(b.cacheDir, b.pending); err != nil && b.err == nil {
		b.err = err
	}
	b.pending, b.bytes = nil, 0
}

func (r *Runner) dequeue(n *node) {
	if n.queued {
		n.queued = false
		r.queued.Add(-1)
	}
}

func (r *Runner) emit(e Event) {
	r.mu.Lock()
	r.states[e.Target] = e.State
	r.mu.Unlock()
	r.opts.Observer.Event(e)
}

// journal begins the record of node n's run under id, started at start:
// what every journal of the runner says of its target and its process.
func (r *Runner) journal(n *node, id string, start time.Time, status string) *Journal {
	trigger := r.opts.Trigger
	if n.trigger != "" {
		trigger = n.trigger
	}
	return &Journal{
		ID: id, Target: n.t.ID(), Argv: n.t.Run, Dir: n.p.Path, Status: status, Start: start.UTC(),
		CacheKey: n.key, Trigger: trigger, PID: os.Getpid(), PIDStart: selfStart(), EnvMode: r.opts.EnvMode,
		Shard: r.opts.Shard, ShardPlan: r.opts.ShardPlan,
	}
}

// finish records a target's end and reports it.
func (r *Runner) finish(n *node, status, runID string, code int, errMsg string, d time.Duration) {
	r.finishFrom(n, status, "", runID, code, errMsg, d)
}

// finishFrom is finish for a target whose result came from somewhere.
func (r *Runner) finishFrom(n *node, status, from, runID string, code int, errMsg string, d time.Duration) {
	r.dequeue(n)
	if n.preset != "" && runID == "" {
		// It ended without running (a failed dependency, a cancel): its
		// promised journal says so.
		runID = n.preset
		j := r.journal(n, runID, n.presetAt, status)
		j.ExitCode, j.End, j.Err = code, time.Now().UTC(), errMsg
		_ = writeJournal(r.opts.CacheDir, j)
	}
	n.res = TargetResult{Target: n.t.ID(), Status: status, RunID: runID, CacheKey: n.key, From: from, ExitCode: code, Duration: d, Err: errMsg}
	e := Event{Target: n.t.ID(), State: status, RunID: runID, Cached: status == StateCached, ExitCode: code, Err: errMsg, Time: time.Now()}
	if e.Cached {
		e.From = from
	}
	r.emit(e)
}

// depsDone is closed when every dependency of n has ended.
func (r *Runner) depsDone(n *node) <-chan struct{} {
	c := make(chan struct{})
	go func() {
		for _, d := range n.deps {
			<-d.done
		}
		close(c)
	}()
	return c
}

func (r *Runner) runNode(ctx context.Context, root string, n *node) {
	id := n.t.ID()
	for _, d := range n.deps {
		<-d.done
	}
	for _, d := range n.deps {
		switch d.res.Status {
		case StateSucceeded, StateCached:
		case StateFailed:
			r.finish(n, StateFailed, "", 0, "dependency "+d.t.ID()+" failed", 0)
			return
		default:
			r.finish(n, StateSkipped, "", 0, "dependency "+d.t.ID()+" was "+d.res.Status, 0)
			return
		}
	}
	if ctx.Err() != nil {
		r.finish(n, StateSkipped, "", 0, "run cancelled before it started", 0)
		return
	}

	// One run of a target at a time across this Runner's runs, from
	// hashing its inputs to storing its outputs.
	unlock, err := r.lockTarget(ctx, id)
	if err != nil {
		r.finish(n, StateSkipped, "", 0, "run cancelled before it started", 0)
		return
	}
	defer unlock()

	// Never beside what is left of an earlier run whose core process died.
	if err := r.endOrphan(ctx, id); err != nil {
		if ctx.Err() != nil {
			r.finish(n, StateSkipped, "", 0, "run cancelled before it started", 0)
			return
		}
		r.finish(n, StateFailed, "", -1, err.Error(), 0)
		return
	}

	in, err := r.hashInputs(ctx, n)
	if err != nil {
		if ctx.Err() != nil {
			r.finish(n, StateSkipped, "", 0, "run cancelled before it started", 0)
			return
		}
		r.finish(n, StateFailed, "", -1, err.Error(), 0)
		return
	}
	dir := projectDir(root, n.p)
	depKeys := make([]string, len(n.deps))
	for i, d := range n.deps {
		depKeys[i] = d.key
	}
	n.key = computeKey(n.t, n.p.Path, in, depKeys)
	n.in = in

	if n.cache != CacheUse {
		r.execute(ctx, n, dir)
		return
	}
	if m, ok := lookup(r.opts.CacheDir, n.key); ok {
		if r.replay(n, dir, m, FromLocal) {
			return
		}
	}
	if n.remote.usable() && n.remote.fetch(ctx, r.opts.CacheDir, id, n.key, n.t.Outputs) {
		if m, ok := lookup(r.opts.CacheDir, n.key); ok && r.replay(n, dir, m, FromRemote) {
			return
		}
	}
	r.execute(ctx, n, dir)
}

func (r *Runner) hashInputs(ctx context.Context, n *node) (keyInputs, error) {
	select {
	case r.hashing <- struct{}{}:
	case <-ctx.Done():
		return keyInputs{}, ctx.Err()
	}
	defer func() { <-r.hashing }()
	return n.keys.hash(ctx, n.p, n.t)
}

// replay serves a cache hit; false when the entry could not be restored
// (then the target runs).
func (r *Runner) replay(n *node, dir string, m cacheMeta, from string) bool {
	start := time.Now()
	wrote, err := restore(r.opts.CacheDir, n.key, dir, n.t.Outputs, m)
	if wrote {
		n.keys.memo.changed()
	}
	if err != nil {
		// A damaged entry, or one that would write what the target does
		// not declare: drop it, so that the run's result replaces it.
		if errors.Is(err, errNotConfined) && r.opts.Warn != nil {
			r.opts.Warn(fmt.Sprintf("%s: not restored from the cache (entry %s): %v; building locally", n.t.ID(), n.key[:12], err))
		}
		_ = os.RemoveAll(filepath.Join(buildDir(r.opts.CacheDir), n.key))
		return false
	}
	r.live.replay("["+n.t.ID()+"] ", m.Output)
	end := time.Now()
	id, jStart := n.preset, n.presetAt
	if id == "" {
		id, jStart = newRunID(start), start
	}
	j := r.journal(n, id, jStart, StateCached)
	j.End, j.CacheHit, j.From, j.Output, j.Truncated = end.UTC(), true, from, m.Output, m.Truncated
	if n.preset != "" {
		// Its promised journal, readable at once; made durable with the
		// others when the run ends.
		n.hits.replace(j)
	} else {
		n.hits.add(*j)
	}
	r.finishFrom(n, StateCached, from, j.ID, 0, "", end.Sub(start))
	return true
}

func (r *Runner) execute(ctx context.Context, n *node, dir string) {
	id := n.t.ID()
	// What this key was made of, for `core hash --diff` when a later run
	// misses where this one hit, or the other way round.
	deps := make([]Planned, len(n.deps))
	for i, d := range n.deps {
		deps[i] = Planned{Target: d.t.ID(), Key: d.key}
	}
	n.keys.recordParts(r.opts.CacheDir, n, deps)
	n.in = keyInputs{}
	// A slot in the shared pool.
	select {
	case r.slots <- struct{}{}:
	case <-ctx.Done():
		r.finish(n, StateSkipped, "", 0, "run cancelled before it started", 0)
		return
	}
	// The slot is for the process: it is given back as soon as the process
	// exits, before the journal and the cache entry are written (and
	// synced), so the next target does not wait for the disk.
	released := false
	release := func() {
		if !released {
			released = true
			r.running.Add(-1)
			<-r.slots
		}
	}
	defer release()
	r.running.Add(1)
	r.dequeue(n)

	unlinkOutputs(dir, n.t.Outputs)
	start := time.Now()
	runID, jStart := n.preset, n.presetAt
	if runID == "" {
		runID, jStart = newRunID(start), start
	}
	j := r.journal(n, runID, jStart, StateRunning)
	if err := writeJournal(r.opts.CacheDir, j); err != nil {
		r.finish(n, StateFailed, "", -1, "journal: "+err.Error(), 0)
		return
	}
	r.emit(Event{Target: id, State: StateRunning, RunID: j.ID, Time: start})

	c := &execx.Capture{Max: OutputCap}
	if r.live != nil {
		c.Live = &prefixWriter{out: r.live, prefix: []byte("[" + id + "] ")}
	}
	marked := false
	er := execx.ExecStarted(ctx, n.t.Run, dir, n.keys.processEnv(n.t, dir), c, func(pid int) {
		// Recorded at once, for the next run to find if core dies now:
		// the mark (see endOrphan), then the journal. Neither is synced.
		j.ChildPID, j.ChildStart = pid, execx.StartTime(pid)
		marked = writeMark(r.opts.CacheDir, id, runMark{RunID: j.ID, PID: j.PID, PIDStart: j.PIDStart, ChildPID: j.ChildPID, ChildStart: j.ChildStart}) == nil
		_ = replaceJournal(r.opts.CacheDir, j)
	})
	end := time.Now()
	n.keys.memo.changed() // it may have written anywhere: what the run hashed is read again
	if marked {
		removeMark(r.opts.CacheDir, id) // the group is gone: Exec killed it
	}
	release()
	out, truncated := c.Result()

	status := StateSucceeded
	switch {
	case er.Interrupted:
		status = StateInterrupted
	case er.ExitCode != 0 || er.Err != "":
		status = StateFailed
	}
	j.Status, j.ExitCode, j.End, j.Output, j.Truncated, j.Err = status, er.ExitCode, end.UTC(), out, truncated, er.Err
	if status == StateFailed && er.ExitCode > 0 {
		// What it may have needed and not had: only a failure pays for
		// the look.
		j.Withheld = n.keys.hints(n.t, dir, out)
	}
	errMsg := er.Err
	if status == StateSucceeded && n.cache != CacheOff {
		m := cacheMeta{Key: n.key, Target: id, Argv: n.t.Run, DurationNS: end.Sub(start), Created: end.UTC(), Output: out, Truncated: truncated}
		if err := store(r.opts.CacheDir, m, dir, n.t.Outputs, n.cache == CacheRefresh); err != nil {
			// The run succeeded; only its cache entry is missing.
			j.Err = "not cached: " + err.Error()
		} else {
			n.remote.upload(r.opts.CacheDir, n.key)
		}
	}
	j.From = FromBuilt
	if err := writeJournal(r.opts.CacheDir, j); err != nil && errMsg == "" && status != StateSucceeded {
		errMsg = "journal: " + err.Error()
	}
	r.finishFrom(n, status, FromBuilt, j.ID, er.ExitCode, errMsg, end.Sub(start))
	n.res.Withheld = j.Withheld // read once the run's targets have all ended
}

// lockTarget waits (or gives up with ctx) for the target's execution lock:
// one run of a target at a time in this Runner, and across processes (the
// CLI and a server on the same cache) through a file lock, so that the
// second finds the first's cache entry instead of running it again.
func (r *Runner) lockTarget(ctx context.Context, id string) (func(), error) {
	r.mu.Lock()
	ch, ok := r.locks[id]
	if !ok {
		ch = make(chan struct{}, 1)
		r.locks[id] = ch
	}
	r.mu.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	path := filepath.Join(locksDir(r.opts.CacheDir), lockName(id)+".lock")
	for {
		l, err := fsx.TryLockFile(path)
		if err == nil {
			return func() { _ = l.Unlock(); <-ch }, nil
		}
		if !errors.Is(err, fsx.ErrLocked) {
			// No lock file (a read-only cache?): this process's lock
			// still holds, as it did before the file lock existed.
			return func() { <-ch }, nil
		}
		select {
		case <-time.After(targetLockPoll):
		case <-ctx.Done():
			<-ch
			return nil, ctx.Err()
		}
	}
}

// targetLockPoll is how often a target held by another process is tried
// again.
const targetLockPoll = 50 * time.Millisecond

func locksDir(cacheDir string) string { return cachedir.Locks(cacheDir) }

// Planned is one target of a dry run: what would run, under which key,
// and whether the cache already holds its result.
type Planned struct {
	Target string   `json:"target"`
	Key    string   `json:"key"`
	Hit    bool     `json:"hit"` // the cache holds a result for Key
	Argv   []string `json:"argv"`
	Deps   []string `json:"deps"`
	Inputs int      `json:"inputs"` // input files hashed: its own and its // inputs
	// DependencyInputs is how many files of the projects it depends on
	// are in its key.
	DependencyInputs int      `json:"dependency_inputs"`
	Env              []string `json:"env"` // the variables in the key (names only)
	// Toolchain is the first line its version command printed ("" for none).
	Toolchain string `json:"toolchain,omitempty"`
}

// Plan is a dry run of targets: each target and its dependencies in the
// order a run would take them, with the key each would have now and
// whether it would be served from the cache. Nothing runs and nothing is
// written.
func (r *Runner) Plan(ctx context.Context, ws *workspace.Workspace, targets []string) ([]Planned, error) {
	order, err := r.plan(ctx, ws, targets)
	if err != nil {
		return nil, err
	}
	out := make([]Planned, len(order))
	for i, n := range order {
		out[i] = n.planned
	}
	return out, nil
}

// plan is Plan's work: the planned nodes, each with its key, what it
// hashed and what Plan says of it.
func (r *Runner) plan(ctx context.Context, ws *workspace.Workspace, targets []string) ([]*node, error) {
	order, root, err := r.planChecked(ws, targets)
	if err != nil {
		return nil, err
	}
	keys := newKeyer(ctx, ws, root, r.opts.CacheDir, targetenv.New(r.opts.EnvMode, r.opts.Environ))
	if keys.globalErr != nil {
		return nil, fmt.Errorf("global inputs: %w", keys.globalErr)
	}
	for _, n := range order {
		in, err := keys.hash(ctx, n.p, n.t)
		if err != nil {
			return nil, err
		}
		depKeys := make([]string, len(n.deps))
		deps := make([]string, len(n.deps))
		for i, d := range n.deps {
			depKeys[i], deps[i] = d.key, d.t.ID()
		}
		n.key, n.in = computeKey(n.t, n.p.Path, in, depKeys), in
		hit := false
		if r.opts.Cache == CacheUse && r.opts.CacheDir != "" {
			_, hit = lookup(r.opts.CacheDir, n.key)
		}
		env := append(slices.Clone(n.t.Env), ws.Env...) // the target's and the top level's
		slices.Sort(env)
		env = slices.Compact(env)
		if env == nil {
			env = []string{}
		}
		fromDeps := 0
		for _, d := range in.deps {
			fromDeps += d.d.files
		}
		version := ""
		if in.tool != nil {
			version = in.tool.Version
		}
		n.planned = Planned{Target: n.t.ID(), Key: n.key, Hit: hit, Argv: n.t.Run, Deps: deps, Inputs: in.own.files + in.root.files,
			DependencyInputs: fromDeps, Env: env, Toolchain: version}
	}
	return order, nil
}
