package index

import (
	"sync"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/workspace"
)

// shardStream writes each project's @symbols shard during a cold pass as
// soon as the last of its files is parsed, and drops the symbols and
// references from its records then: they were most of what a cold pass
// held at its peak (on a 500,000-file corpus, the references alone were
// 0.77 GB, every parsed file's until the last file was parsed).
// writeShards leaves the projects it wrote to it, and commits its batch
// with the others.
type shardStream struct {
	ix    *Indexer
	batch *fsx.Batch
	owner []string // the owning project of each file to parse, by index
	sym   []bool   // whether each has symbols (its entry goes in the shard)

	mu      sync.Mutex
	left    map[string]int // files with symbols of each project not parsed yet
	entries map[string]map[string]shardEntry
	recs    map[string][]*parse.FileRecord
	written map[string]bool
}

// newShardStream prepares the stream of a pass that parses todo, which
// must be every file of the workspace (a cold pass: no shard on disk
// holds an entry the stream would have to merge). Nil when the store
// cannot be written: writeShards then says why.
func (ix *Indexer) newShardStream(ws *workspace.Workspace, todo []Found) *shardStream {
	if ix.store.ensure() != nil {
		return nil
	}
	owners := graph.NewOwners(ws)
	s := &shardStream{
		ix: ix, batch: fsx.NewBatch(0o600), owner: make([]string, len(todo)), sym: make([]bool, len(todo)),
		left: map[string]int{}, entries: map[string]map[string]shardEntry{},
		recs: map[string][]*parse.FileRecord{}, written: map[string]bool{},
	}
	for i, f := range todo {
		if o := owners.Of(f.Path); o != nil {
			s.owner[i] = o.Name
		}
		if s.sym[i] = hasSymbols(f.Lang); s.sym[i] {
			s.left[s.owner[i]]++
		}
	}
	return s
}

// parsed takes the record of todo[i]; the last of a project's files
// writes its shard. It is called from the parsing workers.
func (s *shardStream) parsed(i int, rec *parse.FileRecord) {
	if !s.sym[i] {
		return
	}
	proj := s.owner[i]
	s.mu.Lock()
	e := s.entries[proj]
	if e == nil {
		e = map[string]shardEntry{}
		s.entries[proj] = e
	}
	e[rec.Path] = shardEntry{Symbols: rec.Symbols, Refs: rec.Refs}
	s.recs[proj] = append(s.recs[proj], rec)
	s.left[proj]--
	done := s.left[proj] == 0
	var recs []*parse.FileRecord
	if done {
		recs = s.recs[proj]
		delete(s.entries, proj)
		delete(s.recs, proj)
		s.written[proj] = true
	}
	s.mu.Unlock()
	if !done {
		return
	}
	// A failed write is the batch's to report at its commit.
	_ = s.batch.Write(s.ix.store.shardPath(proj), encodeShard(e))
	for _, r := range recs {
		r.Symbols, r.Refs = nil, nil
	}
}

// order puts first, of the files of the tree-sitter queue (slower, on
// cores of their own: parallel.Groups), those of the projects that have
// files with symbols (Go's) in the other queue too. A shard is written
// when the last of its project's files is parsed, and the Go files of
// the Go distribution's largest directories (cmd, internal, runtime:
// 4,700 files) each waited for one to three JavaScript or Python files at
// the far end of the slower queue, their references held: a third of the
// largest heap on a 500,000-file corpus.
func (s *shardStream) order(treeSitter, other []int) []int {
	inOther := map[string]bool{}
	for _, i := range other {
		if s.sym[i] {
			inOther[s.owner[i]] = true
		}
	}
	out := make([]int, 0, len(treeSitter))
	for _, i := range treeSitter {
		if inOther[s.owner[i]] {
			out = append(out, i)
		}
	}
	for _, i := range treeSitter {
		if !inOther[s.owner[i]] {
			out = append(out, i)
		}
	}
	return out
}

// streamed reports whether the stream wrote proj's shard (nil: none).
func (s *shardStream) streamed(proj string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written[proj]
}
