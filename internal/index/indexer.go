// Package index turns the files of a workspace into the code and docs part
// of its knowledge graph. It finds the files to index, and package
// index/parse turns each into a FileRecord; records are cached on disk
// (keyed by size and modification time) so that a restart on an unchanged
// tree parses nothing, and an edit re-parses only that file. Assembly turns
// records into the default graph (files, packages, imports, doc links,
// inferred project dependencies) and into one @symbols shard per project
// (symbols, ownership and references), which is loaded only when a query
// asks for symbols.
package index

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/workspace"
)

// Stats describe one indexing pass.
type Stats struct {
	Files    int           // files indexed in all
	Parsed   int           // files parsed in this pass
	Removed  int           // records dropped in this pass
	Duration time.Duration // wall time of the pass
	// SymbolsOnly says the pass changed symbols or references and nothing
	// of the default graph, which is then the previous one, not rebuilt.
	SymbolsOnly bool
	// Unchanged says an Update found nothing to re-index (the paths did
	// not change size or time, or are not indexed).
	Unchanged bool
}

// Indexer keeps the index of one workspace, in memory and in the cache
// directory. It is safe for concurrent use; passes are serialised.
type Indexer struct {
	root     string
	store    store
	lockPath string
	rule     *ignore.Rule
	maxSize  int64
	gc       GC // Options.GC

	mu     sync.Mutex
	ws     *workspace.Workspace
	files  map[string]*parse.FileRecord // symbols and refs live in the shards, not here
	layout string
	diags  []Diagnostic
	ver    *Version  // the default graph of files, as last assembled
	asm    *assembly // how it was assembled, for incremental updates
	// pending holds the shard changes of Updates not yet written: Flush
	// writes them (before files.bin, so that the cache never claims a file
	// whose symbols it lost) and Symbols reads them over the shards.
	pending map[string]*shardPatch
	dirty   bool // files.bin is behind the records in memory
	// prefetched is the stored graph PrefetchEncoded is reading, for the
	// next SyncEncoded.
	prefetched <-chan storedGraph
	// fileDiags is how many records carry a diagnostic.
	fileDiags int
	// diagGen moves whenever the diagnostics may have changed, so that a
	// watcher of them need not build the list after every edit.
	diagGen atomic.Uint64

	// The symbol graph is assembled on demand and stays valid until the
	// index changes: every change bumps symGen, and an assembly is
	// installed with the generation it was built from. symMu only keeps
	// two assemblies from running at once; it is never held together with
	// mu the other way round (a change takes mu and then bumps symGen).
	symMu   sync.Mutex
	symGen  atomic.Uint64
	symbols atomic.Pointer[atGen[*graph.Graph]]
	tables  atomic.Pointer[atGen[*symbolTables]] // the loaded shards, resolved for lookups
	// written holds the shards a Sync has just written, by project, for
	// keepWritten or until the first symbol query reads them from here
	// instead of from disk: right after a cold index that query would
	// otherwise decode every shard it has just encoded.
	written atomic.Pointer[atGen[map[string]map[string]shardEntry]]

	shardLoads atomic.Int64
	parsed     atomic.Int64
	prog       progress
}

// Options tune an Indexer.
type Options struct {
	// Rule says what is not the workspace's source (package ignore); nil
	// is the rule of root with its cache directory at cacheDir.
	Rule *ignore.Rule
	// MaxFileSize skips larger files with a diagnostic.
	MaxFileSize int64
	// GC is what a pass may do to the process's garbage collector. It is
	// the process owner's to give (main, the server); its zero value
	// leaves the process alone, as a library should.
	GC GC
}

// GC is the process's garbage collector, as its owner lets an indexer
// tune it: a pass asks for less frequent collections while it runs, and
// restores the settings after.
type GC struct {
	// Percent sets the collector's target percentage and answers the one
	// before (debug.SetGCPercent).
	Percent func(percent int) int
	// Limit sets the soft memory limit and answers the one before; a
	// negative limit only reads it (debug.SetMemoryLimit).
	Limit func(limit int64) int64
}

// New returns the indexer of the workspace at root, caching in cacheDir.
func New(root, cacheDir string, o Options) *Indexer {
	dir := cachedir.Index(cacheDir)
	if o.Rule == nil {
		o.Rule = ignore.New(root, cacheDir)
	}
	return &Indexer{root: root, store: store{dir: dir}, lockPath: cachedir.IndexLock(cacheDir), rule: o.Rule, maxSize: o.MaxFileSize, gc: o.GC}
}

// Rule is what the index skips as not the workspace's source.
func (ix *Indexer) Rule() *ignore.Rule { return ix.rule }

// ShardLoads counts how many @symbols shards were read to answer queries.
func (ix *Indexer) ShardLoads() int64 { return ix.shardLoads.Load() }

// Parsed counts the files parsed since New.
func (ix *Indexer) Parsed() int64 { return ix.parsed.Load() }

// DiagnosticCount is len(Diagnostics()), without building the list: every
// status call asks, so it is kept as records change rather than counted.
func (ix *Indexer) DiagnosticCount() int {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.diags) + ix.fileDiags
}

// DiagnosticsVersion moves whenever Diagnostics may have changed.
func (ix *Indexer) DiagnosticsVersion() uint64 { return ix.diagGen.Load() }

// diagCount is 1 for a record with a diagnostic, else 0 (nil included).
func diagCount(r *parse.FileRecord) int {
	if r != nil && r.Diag != "" {
		return 1
	}
	return 0
}

// Diagnostics are the paths the last pass skipped or could not parse.
func (ix *Indexer) Diagnostics() []Diagnostic {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	out := append([]Diagnostic(nil), ix.diags...)
	for _, p := range sortedPaths(ix.files) {
		if d := ix.files[p].Diag; d != "" {
			out = append(out, Diagnostic{Path: p, Message: d})
		}
	}
	return out
}

func (ix *Indexer) lock() (*fsx.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(ix.lockPath), 0o700); err != nil {
		return nil, err
	}
	return fsx.LockFile(ix.lockPath)
}
