package index

import (
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/parallel"
	"github.com/corehq/core/internal/workspace"
)

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
// parsed or removed file (all of them when the project layout changed),
// but those stream wrote already (stream may be nil), whose batch it
// commits with its own. It returns the shards it wrote (not stream's).
func (ix *Indexer) writeShards(ws *workspace.Workspace, files map[string]*parse.FileRecord, parsed []*parse.FileRecord, removed []string, relayout bool, stream *shardStream) (map[string]map[string]shardEntry, error) {
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
	for p := range affected {
		if stream.streamed(p) {
			delete(affected, p)
		}
	}
	if len(affected) == 0 && stream == nil {
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
	if stream != nil {
		batch = stream.batch
	}
	parallel.For(len(save), func(i int) { batch.Write(ix.store.shardPath(save[i]), encodeShard(shards[save[i]])) })
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
