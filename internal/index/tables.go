package index

import (
	"errors"
	"maps"
	"sort"
	"sync/atomic"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
)

// Symbols returns the symbol part of the graph, reading every @symbols
// shard the first time it is asked for after a change. Only queries that
// seed on symbols call it (rule G3).
func (ix *Indexer) Symbols() (*graph.Graph, error) {
	if sg := current(ix, &ix.symbols); sg != nil {
		return sg.v, nil
	}
	ix.symMu.Lock()
	defer ix.symMu.Unlock()
	if sg := current(ix, &ix.symbols); sg != nil {
		return sg.v, nil
	}
	t, err := ix.tablesLocked()
	if err != nil {
		return nil, err
	}
	g := t.v.assemble(t.v.paths)
	install(ix, &ix.symbols, t.gen, g)
	// Every symbol query takes the whole graph from now on (SymbolsReady),
	// so the tables would only hold memory.
	ix.tables.CompareAndSwap(t, nil)
	return g, nil
}

// SymbolsVersion changes whenever the symbol part of the index may have:
// what was derived from it at another version is stale.
func (ix *Indexer) SymbolsVersion() uint64 { return ix.symGen.Load() }

// SymbolsReady reports whether the whole symbol graph of the current index
// is assembled, so that Symbols returns at once.
func (ix *Indexer) SymbolsReady() bool {
	return current(ix, &ix.symbols) != nil
}

// SymbolsNear returns the part of the symbol graph that a query seeded
// only on these exact symbol names, to a depth of at most 1, can reach:
// such a query gives the same result over it as over Symbols (see
// symbolTables.near), at a fraction of the cost on a large workspace. The
// shards are read as for Symbols, once per change. ok is false, and
// nothing is read, when the whole symbol graph of the current index is
// assembled already: Symbols answers then, from memory.
func (ix *Indexer) SymbolsNear(names []string) (part *graph.Graph, ok bool, err error) {
	if ix.SymbolsReady() {
		return nil, false, nil // without waiting on symMu
	}
	ix.symMu.Lock()
	defer ix.symMu.Unlock()
	if ix.SymbolsReady() {
		return nil, false, nil
	}
	t, err := ix.tablesLocked()
	if err != nil {
		return nil, false, err
	}
	return t.v.near(names), true, nil
}

// WarmSymbolTables reads the shards into the tables SymbolsNear answers
// from, unless they or the whole symbol graph are current already: the
// live view calls it after a change, in the background, so that the next
// exact symbol query does not pay for it.
func (ix *Indexer) WarmSymbolTables() error {
	ix.symMu.Lock()
	defer ix.symMu.Unlock()
	if ix.SymbolsReady() {
		return nil
	}
	_, err := ix.tablesLocked()
	return err
}

// tablesLocked returns the symbol tables of the current index, reading
// the shards when the last ones are stale. symMu must be held.
func (ix *Indexer) tablesLocked() (*atGen[*symbolTables], error) {
	if t := current(ix, &ix.tables); t != nil {
		return t, nil
	}
	ix.mu.Lock()
	gen := ix.symGen.Load()
	ws, files := ix.ws, ix.files
	full := make(map[string]*parse.FileRecord, len(files))
	for p, r := range files {
		c := *r
		full[p] = &c
	}
	pending := make(map[string]*shardPatch, len(ix.pending))
	for proj, sp := range ix.pending {
		pending[proj] = &shardPatch{set: maps.Clone(sp.set), del: maps.Clone(sp.del)}
	}
	ix.mu.Unlock()
	if ws == nil {
		return nil, errors.New("the workspace is not indexed yet")
	}
	projects := []string{""}
	for _, p := range ws.Projects {
		projects = append(projects, p.Name)
	}
	sort.Strings(projects)
	written := current(ix, &ix.written)
	for _, p := range projects {
		var entries map[string]shardEntry
		var err error
		if written != nil && written.v[p] != nil {
			// No patch is pending on them: Sync flushes the patches
			// before it writes, and an edit since would make them stale.
			entries = written.v[p]
		} else {
			entries, err = ix.store.loadShard(p)
		}
		if err != nil {
			// A damaged shard is rebuilt from its files rather than
			// failing every symbol query until the next sync.
			entries = ix.rebuildShard(ws, full, p)
		}
		ix.shardLoads.Add(1)
		if sp := pending[p]; sp != nil {
			sp.apply(entries)
		}
		for path, e := range entries {
			if r, ok := full[path]; ok {
				r.Symbols, r.Refs = e.Symbols, e.Refs
			}
		}
	}
	if written != nil {
		ix.written.CompareAndSwap(written, nil)
	}
	return install(ix, &ix.tables, gen, newSymbolTables(ws, full)), nil
}

// atGen is something derived from the index at one generation (symGen):
// valid while no change has come in since.
type atGen[T any] struct {
	gen uint64
	v   T
}

// current returns what p holds if it is of the current generation, or nil.
func current[T any](ix *Indexer, p *atomic.Pointer[atGen[T]]) *atGen[T] {
	if a := p.Load(); a != nil && a.gen == ix.symGen.Load() {
		return a
	}
	return nil
}

// install stores v, derived at generation gen, in p, unless a change came
// in meanwhile: a stale symbol graph or table set is most of the heap for
// every GC cycle to mark, and the next query rebuilds it anyway.
func install[T any](ix *Indexer, p *atomic.Pointer[atGen[T]], gen uint64, v T) *atGen[T] {
	a := &atGen[T]{gen: gen, v: v}
	p.Store(a)
	if ix.symGen.Load() != gen {
		p.CompareAndSwap(a, nil)
	}
	return a
}

// resetSymbols marks the assembled symbols stale and lets them go: the
// next symbol query reassembles anyway, and until then every GC cycle would
// mark them (at 100k files, most of the heap). It takes no lock, so a
// change holding mu never waits for an assembly.
func (ix *Indexer) resetSymbols() {
	ix.symGen.Add(1)
	ix.symbols.Store(nil)
	ix.tables.Store(nil)
}
