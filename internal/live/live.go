// Package live keeps the server's current view of the workspace: the
// knowledge graph from targets.yaml and the index of its files, pre-encoded
// once per change so that every read serves the same bytes. File changes
// re-index only what changed; a broken targets.yaml never takes the view
// down: the last good graph stays served and the problem is kept as a
// diagnostic (and published) until the file is fixed.
package live

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/watch"
	"github.com/corehq/core/internal/workspace"
)

// Snapshot is one version of the workspace graph. Its encodings are made
// once, on first use, and then served as they are: a change is announced
// without waiting for a 60 MB encode nobody may ask for.
type Snapshot struct {
	Version uint64
	ETag    string // strong, quoted: this server instance and the version
	Nodes   int
	Edges   int

	ver      *index.Version
	jsonOnce sync.Once
	json     []byte
	gzipOnce sync.Once
	gzip     []byte
	qOnce    sync.Once
	qIdx     atomic.Pointer[query.Index]
	infOnce  sync.Once
	inferred []graph.Edge
	hOnce    sync.Once
	holds    map[string]map[string]int
	res      resolved
}

// Graph is the version's graph, laid out on first use.
func (s *Snapshot) Graph() *graph.Graph { return s.ver.Graph() }

// JSON is exactly what `core graph --json` prints.
func (s *Snapshot) JSON() []byte {
	s.jsonOnce.Do(func() { s.json = s.Graph().Encode() })
	return s.json
}

// Gzip is JSON, compressed once.
func (s *Snapshot) Gzip() []byte {
	s.gzipOnce.Do(func() { s.gzip = gzipBytes(s.JSON()) })
	return s.gzip
}

// QueryIndex is the query engine's index of this snapshot, built on first
// use and shared by every query of the version.
func (s *Snapshot) QueryIndex() *query.Index {
	s.qOnce.Do(func() { s.qIdx.Store(query.NewIndex(s.Graph())) })
	return s.qIdx.Load()
}

// Holds counts what each project owns in this version, by kind (the
// project skeleton's Node.Holds), once.
func (s *Snapshot) Holds() map[string]map[string]int {
	s.hOnce.Do(func() { s.holds = graph.Holds(s.Graph()) })
	return s.holds
}

// Publisher receives events (the SSE hub).
type Publisher interface {
	Publish(kind string, data []byte)
}

// Workspace is the live view of one workspace.
type Workspace struct {
	root     string
	cacheDir string
	log      zerolog.Logger
	pub      Publisher
	ix       *index.Indexer
	rule     *ignore.Rule

	cur        atomic.Pointer[Snapshot]
	mu         sync.Mutex // serialises rebuilds
	ws         *workspace.Workspace
	diag       atomic.Pointer[diagnostic]
	version    uint64
	symVersion uint64
	instance   string // in ETags, so that another server's ETag never matches
	flush      *time.Timer
	warm       *time.Timer
	// symbolsUsed is set by the first symbol query: from then on symbols
	// are reassembled after changes in the background.
	symbolsUsed atomic.Bool
	// wholeSymbolsUsed is set by the first symbol query that needs the
	// whole symbol graph (a glob, kind:symbol, a depth over 1): from then
	// on the warm-up assembles all of it.
	wholeSymbolsUsed atomic.Bool
	// The index's diagnostics as last announced (w.mu): each problem is
	// logged once, and a change to the set is an event.
	diagVersion uint64
	diagSeen    map[index.Diagnostic]bool
}

type diagnostic struct{ err error }

// ErrNoGraph is returned before the first good build.
var ErrNoGraph = errors.New("the workspace has no graph yet")

// GC is what an indexer of this process may do to the garbage collector
// (index.Options.GC): nothing, unless the process's owner (main, the
// server) gives debug.SetGCPercent and debug.SetMemoryLimit before it
// indexes.
var GC index.GC

// NewIndexer returns the indexer a workspace uses, caching in cacheDir
// ("" is root/.core).
func NewIndexer(root, cacheDir string) *index.Indexer {
	if cacheDir == "" {
		cacheDir = filepath.Join(root, ignore.DefaultCacheDir)
	}
	return index.New(root, cacheDir, index.Options{Rule: ignore.New(root, cacheDir), GC: GC})
}

// New indexes the workspace at root (warm from cacheDir when it can). A
// broken targets.yaml is not fatal: the view starts empty with the
// diagnostic set.
func New(root, cacheDir string, pub Publisher, log zerolog.Logger) *Workspace {
	ix := NewIndexer(root, cacheDir)
	w := &Workspace{root: root, cacheDir: cacheDir, pub: pub, log: log, ix: ix, instance: instanceID(), rule: ix.Rule()}
	log.Info().Str(logx.Workspace, root).Msg("indexing")
	stop := reportProgress(ix.Progress, log, ProgressEvery)
	_ = w.Rebuild()
	stop()
	return w
}

// ProgressEvery is how often a first index that is still under way says
// how far it has come.
var ProgressEvery = 2 * time.Second

// reportProgress logs the pass's progress every interval until stop is
// called, so that a first index of a big workspace is not a silent minute.
func reportProgress(progress func() index.Progress, log zerolog.Logger, every time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			p := progress()
			ev := log.Info().Str("phase", p.Phase.String()).Int64("files", p.Found)
			if p.Phase >= index.PhaseParsing {
				ev = ev.Str("parsed", fmt.Sprintf("%d/%d", p.Parsed, p.ToParse))
			}
			ev.Msg("indexing")
		}
	}()
	return func() { close(done); <-finished }
}

// Root is the workspace root.
func (w *Workspace) Root() string { return w.root }

// Declared is the last targets.yaml that loaded. Before one ever did, it
// is nil with the reason: the file's diagnostic.
func (w *Workspace) Declared() (*workspace.Workspace, error) {
	w.mu.Lock()
	ws := w.ws
	w.mu.Unlock()
	if ws != nil {
		return ws, nil
	}
	if err := w.Diagnostic(); err != nil {
		return nil, err
	}
	return nil, ErrNoGraph
}

// Indexer is the workspace's indexer.
func (w *Workspace) Indexer() *index.Indexer { return w.ix }

// Current returns the latest good snapshot, or an error explaining why there
// is none (the diagnostic of a workspace that never loaded).
func (w *Workspace) Current() (*Snapshot, error) {
	if s := w.cur.Load(); s != nil {
		return s, nil
	}
	if err := w.Diagnostic(); err != nil {
		return nil, err
	}
	return nil, ErrNoGraph
}

// Diagnostic is the current problem of the workspace, nil when it loads.
func (w *Workspace) Diagnostic() error {
	if d := w.diag.Load(); d != nil {
		return d.err
	}
	return nil
}

// Build indexes the workspace at root once, using and refreshing the cache
// in cacheDir, and returns its knowledge graph: what the CLI prints.
func Build(root, cacheDir string) (*graph.Graph, *index.Indexer, error) {
	ix := NewIndexer(root, cacheDir)
	ws, err := load(root, cacheDir)
	if err != nil {
		return nil, nil, err
	}
	stop := onIndex(ix)
	v, _, err := ix.Sync(ws)
	stop()
	if err != nil {
		return nil, ix, err
	}
	return v.Graph(), ix, nil
}

// OnIndex, when set (by the CLI's main), is told of each one-shot pass
// (Build, BuildJSON, Resolved) as it starts, with what reads how far it
// has come; what it answers is called when the pass ends.
var OnIndex func(progress func() index.Progress) (stop func())

func onIndex(ix *index.Indexer) (stop func()) {
	if OnIndex == nil {
		return func() {}
	}
	if stop := OnIndex(ix.Progress); stop != nil {
		return stop
	}
	return func() {}
}

// BuildJSON is Build for `core graph --json`: it writes the graph's
// encoding (the bytes of GET /api/v1/graph) to w, which an unchanged tree
// serves from the cache without assembling (index.Indexer.SyncEncoded).
// The stored graph is read and checked against the tree while the
// workspace loads.
func BuildJSON(root, cacheDir string, w io.Writer) error {
	ix := NewIndexer(root, cacheDir)
	ix.PrefetchEncoded()
	ws, err := load(root, cacheDir)
	if err != nil {
		return err
	}
	stop := onIndex(ix)
	defer stop()
	return ix.SyncEncoded(ws, w)
}

// load loads the workspace at root for a one-shot CLI pass, and makes sure
// of its cache directory.
func load(root, cacheDir string) (*workspace.Workspace, error) {
	ws, err := workspace.Load(root)
	if err != nil {
		return nil, err
	}
	if err := fsx.EnsureCacheDir(cacheDir); err != nil {
		return nil, err
	}
	return ws, nil
}

// Rebuild reloads targets.yaml and reconciles the whole index with disk
// (the sync-graph job). On failure it keeps the last good snapshot.
func (w *Workspace) Rebuild() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	ws, err := w.reload()
	if err != nil {
		return err
	}
	v, st, err := w.ix.Sync(ws)
	if err != nil {
		w.fail(err)
		return err
	}
	w.log.Debug().Int("files", st.Files).Int("parsed", st.Parsed).Dur(logx.Latency, st.Duration).Msg("index synced")
	w.install(v, true)
	w.noteIndexDiagnostics()
	w.warmSymbols()
	return nil
}

// Changed re-indexes after a batch of file changes: only the changed paths,
// unless targets.yaml changed or events were lost (then everything).
func (w *Workspace) Changed(b watch.Batch) error {
	reconcile := b.Overflow
	for _, p := range b.Paths {
		// targets.yaml, or a manifest whose dependencies between projects
		// the workspace reads when it loads.
		if workspace.Reads(p) {
			reconcile = true
		}
	}
	if reconcile {
		return w.Rebuild()
	}
	w.mu.Lock()
	ws := w.ws
	if ws == nil {
		w.mu.Unlock()
		return w.Rebuild()
	}
	defer w.mu.Unlock()
	v, st, err := w.ix.Update(ws, b.Paths)
	if err != nil {
		w.fail(err)
		return err
	}
	w.noteIndexDiagnostics()
	if st.Unchanged {
		return nil
	}
	// An edit the indexer took for structural may still leave the default
	// graph as it was (a new import and a new export that cancel out): then
	// only the symbols changed, and that is announced all the same.
	if st.SymbolsOnly || !w.install(v, !v.Edited()) {
		// The default graph is as it was; the symbols changed. Clients
		// holding symbol query results refresh on this event too.
		w.symVersion++
		if snap := w.cur.Load(); snap != nil {
			if qi := snap.qIdx.Load(); qi != nil {
				qi.ForgetSymbols()
			}
			w.publish(events.KindGraph, events.Graph{Version: snap.Version, SymbolsVersion: w.symVersion, Nodes: snap.Nodes, Edges: snap.Edges, ETag: snap.ETag})
		}
	}
	w.scheduleFlush()
	w.warmSymbols()
	return nil
}

// IndexSource names the index in `event: diagnostic`.
const IndexSource = "index"

// maxLogged bounds the index problems logged one by one after a pass.
const maxLogged = 20

// noteIndexDiagnostics logs each new problem of the index once (a file
// over the size limit, an unreadable directory, a symlink loop, a file
// that does not parse) and announces a change to the set as
// `event: diagnostic` from the index, whose clients read the list in the
// status. w.mu is held.
func (w *Workspace) noteIndexDiagnostics() {
	v := w.ix.DiagnosticsVersion()
	if v == w.diagVersion && w.diagSeen != nil {
		return
	}
	w.diagVersion = v
	list := w.ix.Diagnostics()
	now := make(map[index.Diagnostic]bool, len(list))
	var fresh []index.Diagnostic
	for _, d := range list {
		now[d] = true
		if !w.diagSeen[d] {
			fresh = append(fresh, d)
		}
	}
	gone := len(w.diagSeen)+len(fresh) != len(now)
	w.diagSeen = now
	for i, d := range fresh {
		if i == maxLogged {
			w.log.Warn().Int("more", len(fresh)-maxLogged).Msg("more paths not indexed; the status lists them")
			break
		}
		w.log.Warn().Str(logx.File, quote.Prefix(d.Path)).Str(logx.Reason, d.Message).Msg("not indexed")
	}
	if len(fresh) == 0 && !gone {
		return
	}
	msg := ""
	if len(list) > 0 {
		msg = fmt.Sprintf("%d paths not indexed, %s first: %s", len(list), quote.Short(list[0].Path), list[0].Message)
	}
	w.publish(events.KindDiagnostic, events.Diagnostic{Source: IndexSource, Message: msg})
}

// flushDelay is how long the index cache may lag behind memory after a
// change; Close flushes at once.
const flushDelay = 2 * time.Second

func (w *Workspace) scheduleFlush() {
	if w.flush == nil {
		w.flush = time.AfterFunc(flushDelay, func() { _ = w.ix.Flush() })
		return
	}
	w.flush.Reset(flushDelay)
}

// Close saves what the index has not saved yet.
func (w *Workspace) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.flush != nil {
		w.flush.Stop()
	}
	if w.warm != nil {
		w.warm.Stop()
	}
	return w.ix.Flush()
}

// reload reads targets.yaml, keeping the last good workspace on failure.
func (w *Workspace) reload() (*workspace.Workspace, error) {
	ws, err := workspace.Load(w.root)
	if err != nil {
		w.fail(err)
		return nil, err
	}
	if prev := w.diag.Swap(nil); prev != nil {
		w.log.Info().Str(logx.File, workspace.FileName).Msg("workspace loads again")
		w.publish(events.KindDiagnostic, events.Diagnostic{Source: workspace.FileName})
	}
	w.ws = ws
	return ws, nil
}

func (w *Workspace) fail(err error) {
	prev := w.diag.Swap(&diagnostic{err: err})
	if prev == nil || prev.err.Error() != err.Error() {
		w.log.Warn().Str(logx.File, workspace.FileName).Str(logx.Reason, err.Error()).Msg("workspace does not load; serving the last good graph")
		w.publish(events.KindDiagnostic, events.Diagnostic{Source: workspace.FileName, Message: err.Error()})
	}
}

// install makes v current if it differs from the current version, and
// says whether it did. An edit's version is the same one when the edit
// changed nothing; a rebuild's (compare) is compared node by node.
func (w *Workspace) install(v *index.Version, compare bool) bool {
	if old := w.cur.Load(); old != nil && (old.ver == v || compare && graph.Equal(old.Graph(), v.Graph())) {
		return false
	}
	w.version++
	snap := &Snapshot{
		Version: w.version,
		ver:     v,
		ETag:    fmt.Sprintf(`"%s-%d"`, w.instance, w.version),
		Nodes:   v.Nodes,
		Edges:   v.Edges,
	}
	w.cur.Store(snap)
	w.log.Info().Uint64(logx.Version, snap.Version).Int(logx.Nodes, snap.Nodes).Int(logx.Edges, snap.Edges).Msg("graph built")
	w.publish(events.KindGraph, events.Graph{Version: snap.Version, Nodes: snap.Nodes, Edges: snap.Edges, ETag: snap.ETag})
	return true
}

// Query runs a parsed query over the current graph, loading the symbol
// shards only when the query seeds on symbols.
func (w *Workspace) Query(q *query.Query) (*graph.Graph, error) {
	snap, err := w.Current()
	if err != nil {
		return nil, err
	}
	if q.NeedsSymbols() {
		w.symbolsUsed.Store(true)
		if _, exact := q.SymbolNames(); !exact {
			w.wholeSymbolsUsed.Store(true)
		}
	}
	return Eval(snap.QueryIndex(), w.ix, q)
}

// Eval runs q over the indexed default graph qi, with the symbols of ix
// when q seeds on them. A query for exact symbol names, to a depth of at
// most 1, takes only the part of the symbol graph around those names
// (Indexer.SymbolsNear) until the whole of it is assembled; every other
// symbol query assembles the whole.
func Eval(qi *query.Index, ix *index.Indexer, q *query.Query) (*graph.Graph, error) {
	if names, ok := q.SymbolNames(); ok {
		part, ok, err := ix.SymbolsNear(names)
		if err != nil {
			return nil, fmt.Errorf("query: loading symbols: %w", err)
		}
		if ok {
			return qi.EvalPart(q, part)
		}
	}
	return qi.Eval(q, ix.Symbols)
}

// warmDelay is how long after the last change the symbols are reassembled
// in the background, once anyone has asked for symbols.
const warmDelay = time.Second

// warmSymbols reads the symbol shards again after a change, in the
// background, so that the next symbol query does not pay for it. Nothing
// happens until a symbol query has been made. The warm-up prepares what
// the queries made so far use: the tables exact symbol:NAME queries take
// their parts from, or, once a query has needed it, the whole symbol graph
// and its merged query view.
func (w *Workspace) warmSymbols() {
	if !w.symbolsUsed.Load() {
		return
	}
	if w.warm == nil {
		w.warm = time.AfterFunc(warmDelay, w.prepareSymbols)
		return
	}
	w.warm.Reset(warmDelay)
}

func (w *Workspace) prepareSymbols() {
	if !w.wholeSymbolsUsed.Load() {
		_ = w.ix.WarmSymbolTables()
		return
	}
	sg, err := w.ix.Symbols()
	if err != nil {
		return
	}
	if snap := w.cur.Load(); snap != nil {
		snap.QueryIndex().WarmSymbols(sg)
	}
}

// InferredDeps are the current graph's inferred project dependencies.
func (w *Workspace) InferredDeps() []graph.Edge {
	snap, err := w.Current()
	if err != nil {
		return nil
	}
	snap.infOnce.Do(func() { snap.inferred = index.InferredDeps(snap.Graph()) })
	return snap.inferred
}

func (w *Workspace) publish(kind string, payload any) {
	if w.pub == nil {
		return
	}
	data, _ := json.Marshal(payload)
	w.pub.Publish(kind, data)
}

// instanceID names this server process in ETags.
func instanceID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// Watch re-indexes on every debounced batch of changes until ctx ends. It
// returns the watcher's set-up error, if any, at once.
func (w *Workspace) Watch(ctx context.Context, debounce time.Duration) error {
	wt, err := watch.New(w.rule, debounce)
	if err != nil {
		return err
	}
	if err := wt.LimitError(); err != nil {
		w.log.Warn().Str(logx.Reason, err.Error()).Dur("poll", PollInterval).Msg("file watching is partial; polling the whole workspace as well")
		go w.poll(ctx, PollInterval)
	}
	go func() {
		_ = wt.Run(ctx, func(b watch.Batch) { _ = w.Changed(b) })
	}()
	return nil
}

// PollInterval is how often the workspace is reconciled when the watcher
// cannot see everything (the inotify limit was hit).
const PollInterval = 5 * time.Second

// poll reconciles the index with disk at every tick: a warm Sync stats the
// tree and re-parses only what changed, so polling stays cheap.
func (w *Workspace) poll(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = w.Rebuild()
		}
	}
}
