package index

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/parallel"
	"github.com/corehq/core/internal/workspace"
)

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
	ix.prog.start()
	return ix.syncLocked(ws, start, nil)
}

// syncLocked is Sync with both locks held; walked is the walk when the
// caller walked already (else the walk runs here, beside the assembly of
// the cached records).
func (ix *Indexer) syncLocked(ws *workspace.Workspace, start time.Time, walked *walker) (*Version, Stats, error) {
	// A warm or small pass keeps most of what it allocates (the records,
	// the graph), so the collections while its heap grows find little:
	// fewer of them are cheaper (BENCHMARKS.md, "Knowledge graph").
	setGC := ix.gc.Percent
	if setGC == nil {
		setGC = func(int) int { return 0 }
	} else {
		defer setGC(setGC(gcPass))
	}

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
	// A warm pass mostly finds nothing changed: the assembly of the cached
	// records starts beside the walk (which waits on the disk, not a
	// core) and is kept if so. It only reads prev; Sync waits for it
	// before returning, after which an Update may change prev's records.
	var guess *assembly
	var guessed sync.WaitGroup
	if len(prev) > 0 && walked == nil {
		guessed.Go(func() { guess = newAssembly(ws, prev) })
	}
	defer guessed.Wait()
	if walked == nil {
		walked = walk(ix.root, ix.walkOptions(ws))
	}
	found, diags := walked.found, walked.diags
	// What the walk found is in files and todo below: a caller that keeps
	// the walk for what it saw (SyncEncoded) does not keep it too.
	walked.found = nil
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
		// often trades some peak memory for CPU. The deferred call above
		// restores the caller's setting. The heap is held to twice what
		// is live (at least heapFloor), not to gcBigPass times it.
		setGC(gcBigPass)
		if ix.gc.Percent != nil && ix.gc.Limit != nil {
			defer boundHeap(ix.gc.Limit, passBound)()
		}
	}
	ix.prog.toParse.Store(int64(len(todo)))
	ix.prog.phase.Store(int32(PhaseParsing))
	var stream *shardStream
	if fresh && len(todo) > streamFrom {
		stream = ix.newShardStream(ws, todo)
	}
	parsed := ix.parseEach(todo, stream)
	ix.prog.phase.Store(int32(PhaseAssembling))
	nParsed := len(todo)
	todo = nil // garbage from here: the assembly's heap is the pass's largest
	if nParsed > bigPass && ix.gc.Percent != nil && ix.gc.Limit != nil {
		// What is parsed is kept; the assembly and the writes that
		// follow add to it for a few seconds, on the heap's largest.
		defer boundHeap(ix.gc.Limit, tailBound)()
	}
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
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if guessed.Wait(); guess != nil && nParsed == 0 && len(removed) == 0 {
			// files holds prev's records, no more and no fewer.
			asm = guess
			return
		}
		asm = newAssembly(ws, files)
	}()
	written, err := ix.writeShards(ws, files, parsed, removed, fresh || layout != ix.cachedLayout(), stream)
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
	ix.diagGen.Add(1)
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
	ix.prog.phase.Store(int32(PhaseDone))
	return asm.cur, Stats{Files: len(files), Parsed: len(parsed), Removed: len(removed), Duration: time.Since(start)}, nil
}

// keepWritten is how long a Sync keeps the shards it wrote in memory for
// the first symbol query (see Indexer.written).
const keepWritten = time.Minute

// bigPass is the number of files to parse above which a pass tunes the
// garbage collector for throughput.
const bigPass = 2000

// streamFrom is the number of files to parse above which a cold pass
// writes each project's shard as soon as its files are parsed
// (shardStream) rather than keeping them all for the first symbol query:
// a server's first symbol answer then reads the shards from disk, 0.15 s
// later on the Go distribution (11k files), where a pass's peak is 255
// MB anyway; on 500k files the peak was 4.9 GB. A variable for the tests.
var streamFrom = 50_000

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
		if ix.rule.Never(p) {
			continue
		}
		abs := filepath.Join(ix.root, filepath.FromSlash(p))
		st, err := os.Lstat(abs)
		if err != nil {
			// Gone, and with it what the walk said of it or below it.
			ix.replaceDiags(func(d Diagnostic) bool { return d.Path == p || strings.HasPrefix(d.Path, p+"/") }, nil)
			drop(p)
			continue
		}
		if st.IsDir() {
			found, diags := discoverUnder(ix.root, p, ix.walkOptions(ws))
			// The walk's findings replace what an earlier walk said of this
			// subtree, so repeated events do not pile them up.
			kept := ix.diags[:0:0]
			for _, d := range ix.diags {
				if d.Path != p && !strings.HasPrefix(d.Path, p+"/") {
					kept = append(kept, d)
				}
			}
			ix.diags = append(kept, diags...)
			ix.diagGen.Add(1)
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
		f, ok, diags := ix.admit(ws, p, st)
		// What the walk says of the file now replaces what it said before:
		// a file that grew past the size limit leaves the graph with a
		// diagnostic, not silently.
		ix.replaceDiags(func(d Diagnostic) bool { return d.Path == p }, diags)
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
		if diagCount(next[p]) > 0 {
			ix.fileDiags--
			ix.diagGen.Add(1)
		}
		delete(next, p)
	}
	for _, r := range parsed {
		r.Symbols, r.Refs = nil, nil
		if was, is := diagCount(next[r.Path]), diagCount(r); was+is > 0 {
			ix.fileDiags += is - was
			ix.diagGen.Add(1) // a parse diagnostic came, went or changed
		}
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
	if a.Lang != b.Lang || a.Package != b.Package || a.Title != b.Title || a.Module != b.Module || a.Entry != b.Entry || a.Extends != b.Extends || a.BaseURL != b.BaseURL || a.Diag != b.Diag ||
		!slices.Equal(a.Maps, b.Maps) ||
		!slices.Equal(a.Links, b.Links) || !slices.Equal(a.Mentions, b.Mentions) || len(a.Imports) != len(b.Imports) {
		return false
	}
	for i := range a.Imports {
		x, y := a.Imports[i], b.Imports[i]
		if x.Path != y.Path || x.Alias != y.Alias || !slices.Equal(x.Names, y.Names) || !slices.Equal(x.As, y.As) {
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

// replaceDiags drops the walk's diagnostics that stale matches and adds
// fresh ones, moving the diagnostics' version only when something changed.
func (ix *Indexer) replaceDiags(stale func(Diagnostic) bool, fresh []Diagnostic) {
	n := len(ix.diags)
	ix.diags = slices.DeleteFunc(ix.diags, stale)
	if len(fresh) > 0 || len(ix.diags) != n {
		ix.diags = append(ix.diags, fresh...)
		ix.diagGen.Add(1)
	}
}

// admit decides whether one changed file belongs in the index, the way
// Discover would: not ignored by a .gitignore above it, a language core
// indexes, a doc if markdown, not too big; and says what Discover would
// say of it (too big, a symlink loop).
func (ix *Indexer) admit(ws *workspace.Workspace, p string, st fs.FileInfo) (Found, bool, []Diagnostic) {
	if ix.rule.Never(p) || !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
		return Found{}, false, nil
	}
	opts := ix.walkOptions(ws)
	opts.only = path.Base(p)
	found, diags := discoverUnder(ix.root, path.Dir(p), opts)
	for _, f := range found {
		if f.Path == p {
			return f, true, diags
		}
	}
	return Found{}, false, diags
}

// parse reads and parses files on every core.
func (ix *Indexer) parse(todo []Found) []*parse.FileRecord { return ix.parseEach(todo, nil) }

// parseEach is parse, giving each record to stream (when not nil) as its
// worker finishes it.
func (ix *Indexer) parseEach(todo []Found, stream *shardStream) []*parse.FileRecord {
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
	if stream != nil {
		treeSitter = stream.order(treeSitter, other)
	}
	parallel.Groups([][]int{treeSitter, other}, func(i int) {
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
		if stream != nil {
			stream.parsed(i, &rec)
		}
		ix.prog.parsed.Add(1)
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

func layoutOf(ws *workspace.Workspace) string {
	var b strings.Builder
	for _, p := range ws.Projects {
		b.WriteString(p.Name + "=" + p.Path + "\n")
	}
	return b.String()
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

// walkOptions are the options of every walk of ws by this indexer.
func (ix *Indexer) walkOptions(ws *workspace.Workspace) WalkOptions {
	return WalkOptions{DocGlobs: ws.Docs, Rule: ix.rule, MaxFileSize: ix.maxSize, found: &ix.prog.found}
}
