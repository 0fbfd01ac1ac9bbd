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
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
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
	skip     func(rel string) bool
	maxSize  int64

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
	// fileDiags is how many records carry a diagnostic.
	fileDiags int

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
}

// Options tune an Indexer.
type Options struct {
	// Skip names directories (relative, slash-separated) never to index,
	// besides .git and node_modules: the cache directory.
	Skip func(rel string) bool
	// MaxFileSize skips larger files with a diagnostic.
	MaxFileSize int64
}

// New returns the indexer of the workspace at root, caching in cacheDir.
func New(root, cacheDir string, o Options) *Indexer {
	dir := filepath.Join(cacheDir, cacheSubdir)
	return &Indexer{root: root, store: store{dir: dir}, lockPath: filepath.Join(cacheDir, "index.lock"), skip: o.Skip, maxSize: o.MaxFileSize}
}

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

func layoutOf(ws *workspace.Workspace) string {
	var b strings.Builder
	for _, p := range ws.Projects {
		b.WriteString(p.Name + "=" + p.Path + "\n")
	}
	return b.String()
}

// Sync indexes the whole workspace from disk: a cold index when nothing is
// cached, a warm one that parses only files whose size or modification
// time changed otherwise. Its result equals a cold index of the same tree.
// It returns the default graph's version.
func (ix *Indexer) Sync(ws *workspace.Workspace) (*Version, Stats, error) {
	start := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	lock, err := ix.lock()
	if err != nil {
		return nil, Stats{}, err
	}
	defer lock.Unlock()

	if err := ix.flushShardsLocked(); err != nil {
		return nil, Stats{}, err
	}
	prev := ix.files
	fresh := false
	if prev == nil {
		prev = ix.store.loadFiles(ix.root)
		// No usable cache (first run, another version of core): every
		// shard is rewritten, stale ones removed.
		fresh = prev == nil
		if fresh {
			ix.store.removeLegacy()
		}
	}
	found, diags := Discover(ix.root, WalkOptions{DocGlobs: ws.Docs, Skip: ix.skip, MaxFileSize: ix.maxSize})
	files := make(map[string]*parse.FileRecord, len(found))
	var todo []Found
	for _, f := range found {
		if old, ok := prev[f.Path]; ok && old.Size == f.Size && old.ModTime == f.ModTime && old.Lang == f.Lang {
			files[f.Path] = old
			continue
		}
		todo = append(todo, f)
	}
	if len(todo) > bigPass {
		// A big pass allocates a lot and keeps little: collecting less
		// often trades some peak memory for CPU (at 96k files, GOGC=1000
		// against 400: 0.6 s less CPU, 130 MB more peak RSS, 1.1 GB).
		defer debug.SetGCPercent(debug.SetGCPercent(1000))
	}
	parsed := ix.parse(todo)
	for _, rec := range parsed {
		files[rec.Path] = rec
	}
	var removed []string
	for p := range prev {
		if _, ok := files[p]; !ok {
			removed = append(removed, p)
		}
	}
	layout := layoutOf(ws)

	// The shards and the cache files are written while the graph is
	// assembled: neither needs the other.
	var asm *assembly
	var written map[string]map[string]shardEntry
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		asm = newAssembly(ws, files)
	}()
	written, err = ix.writeShards(ws, files, parsed, removed, fresh || layout != ix.cachedLayout())
	for _, rec := range parsed {
		rec.Symbols, rec.Refs = nil, nil
	}
	if err == nil && (fresh || len(parsed) > 0 || len(removed) > 0 || ix.dirty) {
		if err = ix.store.saveFiles(ix.root, files); err == nil {
			ix.dirty = false
		}
	}
	if err == nil {
		err = ix.saveLayout(layout)
	}
	wg.Wait()
	if err != nil {
		return nil, Stats{}, err
	}
	ix.ws, ix.files, ix.diags, ix.layout = ws, files, diags, layout
	ix.fileDiags = 0
	for _, r := range files {
		ix.fileDiags += diagCount(r)
	}
	ix.resetSymbols()
	if len(written) > 0 {
		gen := ix.symGen.Load()
		install(ix, &ix.written, gen, written)
		// The timer holds the generation, not the shards, so that they are
		// garbage as soon as a query has read them.
		time.AfterFunc(keepWritten, func() {
			if w := ix.written.Load(); w != nil && w.gen == gen {
				ix.written.CompareAndSwap(w, nil)
			}
		})
	}
	ix.asm, ix.ver = asm, asm.cur
	return asm.cur, Stats{Files: len(files), Parsed: len(parsed), Removed: len(removed), Duration: time.Since(start)}, nil
}

// keepWritten is how long a Sync keeps the shards it wrote in memory for
// the first symbol query (see Indexer.written).
const keepWritten = time.Minute

// bigPass is the number of files to parse above which a pass tunes the
// garbage collector for throughput.
const bigPass = 2000

// Update re-indexes only the given paths (relative, slash-separated):
// changed files are re-parsed, vanished ones dropped, new directories
// walked. A change to a .gitignore falls back to Sync. Only the shards of
// the projects holding those paths are rewritten.
func (ix *Indexer) Update(ws *workspace.Workspace, paths []string) (*Version, Stats, error) {
	for _, p := range paths {
		if path.Base(p) == ".gitignore" || p == workspace.FileName {
			return ix.Sync(ws)
		}
	}
	start := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.files == nil || layoutOf(ws) != ix.layout || !sameDocs(ws, ix.ws) {
		ix.mu.Unlock()
		v, st, err := ix.Sync(ws)
		ix.mu.Lock()
		return v, st, err
	}
	lock, err := ix.lock()
	if err != nil {
		return nil, Stats{}, err
	}
	defer lock.Unlock()

	var todo []Found
	var removed []string
	drop := func(p string) {
		if _, ok := ix.files[p]; ok {
			removed = append(removed, p)
		}
		prefix := p + "/"
		for q := range ix.files {
			if strings.HasPrefix(q, prefix) {
				removed = append(removed, q)
			}
		}
	}
	for _, p := range paths {
		if ix.skip != nil && ix.skip(p) {
			continue
		}
		abs := filepath.Join(ix.root, filepath.FromSlash(p))
		st, err := os.Lstat(abs)
		if err != nil {
			drop(p)
			continue
		}
		if st.IsDir() {
			found, diags := discoverUnder(ix.root, p, WalkOptions{DocGlobs: ws.Docs, Skip: ix.skip, MaxFileSize: ix.maxSize})
			// The walk's findings replace what an earlier walk said of this
			// subtree, so repeated events do not pile them up.
			kept := ix.diags[:0:0]
			for _, d := range ix.diags {
				if d.Path != p && !strings.HasPrefix(d.Path, p+"/") {
					kept = append(kept, d)
				}
			}
			ix.diags = append(kept, diags...)
			seen := map[string]bool{}
			for _, f := range found {
				seen[f.Path] = true
				if old, ok := ix.files[f.Path]; !ok || old.Size != f.Size || old.ModTime != f.ModTime {
					todo = append(todo, f)
				}
			}
			for q := range ix.files {
				if strings.HasPrefix(q, p+"/") && !seen[q] {
					removed = append(removed, q)
				}
			}
			continue
		}
		f, ok := ix.admit(ws, p, st)
		if !ok {
			drop(p)
			continue
		}
		if old, ok := ix.files[p]; ok && old.Size == f.Size && old.ModTime == f.ModTime {
			continue
		}
		todo = append(todo, f)
	}
	parsed := ix.parse(todo)
	if len(parsed) == 0 && len(removed) == 0 {
		return ix.ver, Stats{Files: len(ix.files), Duration: time.Since(start), Unchanged: true}, nil
	}
	structural := len(removed) > 0 || ix.ver == nil
	for _, r := range parsed {
		if old, ok := ix.files[r.Path]; !ok || !sameShape(old, r) {
			structural = true
		}
	}
	if err := ix.updateShards(ws, parsed, removed); err != nil {
		return nil, Stats{}, err
	}
	// The records change in place: every reader holds ix.mu.
	next := ix.files
	for _, p := range removed {
		ix.fileDiags -= diagCount(next[p])
		delete(next, p)
	}
	for _, r := range parsed {
		r.Symbols, r.Refs = nil, nil
		ix.fileDiags += diagCount(r) - diagCount(next[r.Path])
		next[r.Path] = r
	}
	ix.ws = ws
	ix.resetSymbols()
	// files.bin is saved by Flush: a crash before it only costs re-parsing
	// the files it is behind on (their size or mtime differ), never a
	// wrong answer.
	ix.dirty = true
	st := Stats{Files: len(next), Parsed: len(parsed), Removed: len(removed), SymbolsOnly: !structural}
	if structural {
		v, ok := (*Version)(nil), false
		if ix.asm != nil && len(removed) == 0 {
			v, ok = ix.asm.update(next, parsed)
		}
		if !ok {
			ix.asm = newAssembly(ws, next)
			v = ix.asm.cur
		}
		ix.ver = v
	}
	st.Duration = time.Since(start)
	return ix.ver, st, nil
}

// Flush writes what Update left in memory: the shard changes first, then
// the records.
func (ix *Indexer) Flush() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := ix.flushShardsLocked(); err != nil {
		return err
	}
	if !ix.dirty || ix.files == nil {
		return nil
	}
	if err := ix.store.saveFiles(ix.root, ix.files); err != nil {
		return err
	}
	ix.dirty = false
	return nil
}

// sameShape reports whether two records of one file contribute the same
// nodes and edges to the default graph (symbols and references aside).
func sameShape(a, b *parse.FileRecord) bool {
	if a.Lang != b.Lang || a.Package != b.Package || a.Title != b.Title || a.Module != b.Module || a.Entry != b.Entry || a.Diag != b.Diag ||
		!slices.Equal(a.Links, b.Links) || !slices.Equal(a.Mentions, b.Mentions) || len(a.Imports) != len(b.Imports) {
		return false
	}
	for i := range a.Imports {
		x, y := a.Imports[i], b.Imports[i]
		if x.Path != y.Path || x.Alias != y.Alias || !slices.Equal(x.Names, y.Names) {
			return false
		}
	}
	return true
}

func sameDocs(a, b *workspace.Workspace) bool {
	if a == nil || b == nil {
		return false
	}
	return strings.Join(a.Docs, "\x00") == strings.Join(b.Docs, "\x00")
}

// admit decides whether one changed file belongs in the index, the way
// Discover would: not ignored by a .gitignore above it, a language core
// indexes, a doc if markdown, not too big.
func (ix *Indexer) admit(ws *workspace.Workspace, p string, st fs.FileInfo) (Found, bool) {
	if st.Mode()&fs.ModeSymlink != 0 {
		t, err := os.Stat(filepath.Join(ix.root, filepath.FromSlash(p)))
		if err != nil || !t.Mode().IsRegular() {
			return Found{}, false
		}
		st = t
	}
	if !st.Mode().IsRegular() {
		return Found{}, false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".git" || seg == "node_modules" {
			return Found{}, false
		}
	}
	found, _ := discoverUnder(ix.root, path.Dir(p), WalkOptions{DocGlobs: ws.Docs, Skip: ix.skip, MaxFileSize: ix.maxSize, only: path.Base(p)})
	for _, f := range found {
		if f.Path == p {
			return f, true
		}
	}
	return Found{}, false
}

// parse reads and parses files on every core.
func (ix *Indexer) parse(todo []Found) []*parse.FileRecord {
	out := make([]*parse.FileRecord, len(todo))
	var treeSitter, other []int
	for i, f := range todo {
		switch f.Lang {
		case parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
			treeSitter = append(treeSitter, i)
		default:
			other = append(other, i)
		}
	}
	ParallelGroups([][]int{treeSitter, other}, func(i int) {
		f := todo[i]
		src, err := fsx.ReadSized(filepath.Join(ix.root, filepath.FromSlash(f.Path)), f.Size)
		var rec parse.FileRecord
		if err != nil {
			rec = parse.FileRecord{Path: f.Path, Lang: f.Lang, Diag: "unreadable: " + unwrapPath(err).Error()}
		} else {
			rec = parseSafely(f.Lang, f.Path, src)
		}
		rec.Size, rec.ModTime = f.Size, f.ModTime
		out[i] = &rec
	})
	ix.parsed.Add(int64(len(todo)))
	return out
}

// parseSafely turns a parser panic into a diagnostic: one bad file never
// aborts the index.
func parseSafely(lang, p string, src []byte) (rec parse.FileRecord) {
	defer func() {
		if v := recover(); v != nil {
			rec = parse.FileRecord{Path: p, Lang: lang, Diag: fmt.Sprintf("parser failed: %v", v)}
		}
	}()
	return parse.File(lang, p, src)
}

// shardPatch is a change to one project's shard not yet on disk.
type shardPatch struct {
	set map[string]shardEntry
	del map[string]bool
}

func (sp *shardPatch) apply(entries map[string]shardEntry) {
	for p := range sp.del {
		delete(entries, p)
	}
	for p, e := range sp.set {
		entries[p] = e
	}
}

// updateShards records the shard changes of the parsed and removed files
// in memory; Flush writes them. Nothing here touches the disk, so an edit
// is never held up by a sync of the file system.
func (ix *Indexer) updateShards(ws *workspace.Workspace, parsed []*parse.FileRecord, removed []string) error {
	owners := graph.NewOwners(ws)
	at := func(p string) *shardPatch {
		proj := ""
		if o := owners.Of(p); o != nil {
			proj = o.Name
		}
		if ix.pending == nil {
			ix.pending = map[string]*shardPatch{}
		}
		if ix.pending[proj] == nil {
			ix.pending[proj] = &shardPatch{set: map[string]shardEntry{}, del: map[string]bool{}}
		}
		return ix.pending[proj]
	}
	for _, p := range removed {
		sp := at(p)
		delete(sp.set, p)
		sp.del[p] = true
	}
	for _, r := range parsed {
		if hasSymbols(r.Lang) {
			sp := at(r.Path)
			delete(sp.del, r.Path)
			sp.set[r.Path] = shardEntry{Symbols: r.Symbols, Refs: r.Refs}
		}
	}
	return nil
}

// flushShardsLocked writes the pending shard changes. A shard that cannot
// be read is rebuilt from its project's files.
func (ix *Indexer) flushShardsLocked() error {
	if len(ix.pending) == 0 {
		return nil
	}
	if err := ix.store.ensure(); err != nil {
		return err
	}
	for proj, sp := range ix.pending {
		entries, err := ix.store.loadShard(proj)
		if err != nil {
			entries = ix.rebuildShard(ix.ws, ix.files, proj)
		}
		sp.apply(entries)
		if err := ix.store.saveShard(proj, entries); err != nil {
			return err
		}
		delete(ix.pending, proj)
	}
	return nil
}

// writeShards rewrites the @symbols shard of every project that holds a
// parsed or removed file (all of them when the project layout changed).
func (ix *Indexer) writeShards(ws *workspace.Workspace, files map[string]*parse.FileRecord, parsed []*parse.FileRecord, removed []string, relayout bool) (map[string]map[string]shardEntry, error) {
	if err := ix.store.ensure(); err != nil {
		return nil, err
	}
	owners := graph.NewOwners(ws)
	owner := func(p string) string {
		if o := owners.Of(p); o != nil {
			return o.Name
		}
		return ""
	}
	affected := map[string]bool{}
	if relayout {
		for _, p := range ix.store.shardProjects() {
			affected[p] = true
		}
		for _, p := range ws.Projects {
			affected[p.Name] = true
		}
		affected[""] = true
	}
	for _, r := range parsed {
		affected[owner(r.Path)] = true
	}
	for _, p := range removed {
		affected[owner(p)] = true
	}
	if len(affected) == 0 {
		return nil, nil
	}
	// Entries of unchanged files come from the shards on disk.
	old := map[string]shardEntry{}
	sources := affected
	if relayout {
		sources = map[string]bool{}
		for _, p := range ix.store.shardProjects() {
			sources[p] = true
		}
	}
	for p := range sources {
		entries, err := ix.store.loadShard(p)
		if err != nil {
			continue // unreadable: its files are re-parsed below
		}
		for k, v := range entries {
			old[k] = v
		}
	}
	fresh := map[string]*parse.FileRecord{}
	for _, r := range parsed {
		fresh[r.Path] = r
	}
	shards := map[string]map[string]shardEntry{}
	for p := range affected {
		shards[p] = map[string]shardEntry{}
	}
	var missing []Found
	for p := range files {
		proj := owner(p)
		if !affected[proj] {
			continue
		}
		if r, ok := fresh[p]; ok {
			// Every code file has an entry, empty or not, so that a missing
			// entry always means a lost one.
			if hasSymbols(r.Lang) {
				shards[proj][p] = shardEntry{Symbols: r.Symbols, Refs: r.Refs}
			}
			continue
		}
		if e, ok := old[p]; ok {
			shards[proj][p] = e
			continue
		}
		if f := files[p]; hasSymbols(f.Lang) {
			missing = append(missing, Found{Path: p, Size: f.Size, ModTime: f.ModTime, Lang: f.Lang})
		}
	}
	// A file whose shard entry was lost (a deleted or unreadable shard) is
	// parsed again rather than silently losing its symbols.
	for _, r := range ix.parse(missing) {
		shards[owner(r.Path)][r.Path] = shardEntry{Symbols: r.Symbols, Refs: r.Refs}
	}
	known := map[string]bool{"": true}
	for _, p := range ws.Projects {
		known[p.Name] = true
	}
	var save []string
	for p := range shards {
		if !known[p] {
			ix.store.removeShard(p)
			delete(shards, p)
			continue
		}
		save = append(save, p)
	}
	// Encoding is most of a save, and shards share nothing. One batch
	// makes them all durable with one flush instead of an fsync each.
	batch := fsx.NewBatch(0o600)
	Parallel(len(save), func(i int) { batch.Write(ix.store.shardPath(save[i]), encodeShard(shards[save[i]])) })
	if err := batch.Commit(); err != nil {
		return nil, err
	}
	return shards, nil
}

func hasSymbols(lang string) bool {
	switch lang {
	case parse.LangGo, parse.LangTypeScript, parse.LangJavaScript, parse.LangPython:
		return true
	}
	return false
}

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

// rebuildShard parses the files of one project again and rewrites its
// shard.
func (ix *Indexer) rebuildShard(ws *workspace.Workspace, files map[string]*parse.FileRecord, project string) map[string]shardEntry {
	var todo []Found
	owners := graph.NewOwners(ws)
	for _, p := range sortedPaths(files) {
		f := files[p]
		o := owners.Of(p)
		if (o == nil && project == "" || o != nil && o.Name == project) && hasSymbols(f.Lang) {
			todo = append(todo, Found{Path: p, Size: f.Size, ModTime: f.ModTime, Lang: f.Lang})
		}
	}
	entries := map[string]shardEntry{}
	for _, r := range ix.parse(todo) {
		entries[r.Path] = shardEntry{Symbols: r.Symbols, Refs: r.Refs}
	}
	_ = ix.store.saveShard(project, entries)
	return entries
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

func (ix *Indexer) lock() (*fsx.Lock, error) {
	if err := os.MkdirAll(filepath.Dir(ix.lockPath), 0o700); err != nil {
		return nil, err
	}
	return fsx.LockFile(ix.lockPath)
}

func (ix *Indexer) layoutPath() string { return filepath.Join(ix.store.dir, "layout") }

func (ix *Indexer) cachedLayout() string {
	if ix.layout != "" {
		return ix.layout
	}
	b, _ := os.ReadFile(ix.layoutPath())
	return string(b)
}

func (ix *Indexer) saveLayout(l string) error {
	if l == ix.cachedLayout() {
		if _, err := os.Stat(ix.layoutPath()); err == nil {
			return nil
		}
	}
	return fsx.WriteFileAtomic(ix.layoutPath(), []byte(l), 0o600)
}
