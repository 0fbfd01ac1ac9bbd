package index

import (
	"bytes"
	"math"
	"os"
	"reflect"
	"testing"
)

// A cold pass that writes each project's shard as soon as its files are
// parsed (and drops their symbols from memory then) leaves the shards and
// the symbol graph that a pass keeping them to its end leaves.
func TestAColdPassThatStreamsItsShardsAnswersAsOneThatKeepsThem(t *testing.T) {
	root := newFixture(t)
	defer func(v int) { streamFrom = v }(streamFrom)
	pass := func(from int) (*Indexer, []byte) {
		t.Helper()
		streamFrom = from
		ix := New(root, t.TempDir(), Options{})
		syncIndex(t, ix, root)
		for p, r := range ix.files {
			if r.Symbols != nil || r.Refs != nil {
				t.Errorf("%s keeps its symbols in memory after the pass", p)
			}
		}
		s, err := ix.Symbols()
		if err != nil {
			t.Fatal(err)
		}
		return ix, s.Encode()
	}
	kept, keptSyms := pass(math.MaxInt)
	streamed, streamedSyms := pass(0)
	if streamed.ShardLoads() == 0 {
		t.Error("the streamed pass answered from shards it kept in memory")
	}
	if !bytes.Equal(keptSyms, streamedSyms) {
		t.Error("the symbol graphs differ")
	}
	projects := kept.store.shardProjects()
	if got := streamed.store.shardProjects(); !reflect.DeepEqual(got, projects) || len(projects) < 3 {
		t.Fatalf("shards of %v, want those of %v (at least 3)", got, projects)
	}
	for _, p := range projects {
		a, errA := os.ReadFile(kept.store.shardPath(p))
		b, errB := os.ReadFile(streamed.store.shardPath(p))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("the shard of %q differs (%v, %v)", p, errA, errB)
		}
	}
}

// The tree-sitter queue takes first the files of the projects whose Go
// files the other queue parses: their shards are written, and their
// references let go, without waiting for the slower queue's far end.
func TestTheSlowerQueueTakesFirstTheFilesOfProjectsWithGoFiles(t *testing.T) {
	s := &shardStream{
		owner: []string{"web", "cmd", "web", "cmd", "docs", "py", "cmd"},
		sym:   []bool{true, true, true, true, false, true, true},
	}
	// cmd has Go files (1, 3) and one script (6); docs has only a README
	// (4): a file without symbols holds back no shard.
	treeSitter, other := []int{0, 2, 5, 6}, []int{1, 3, 4}
	if got, want := s.order(treeSitter, other), []int{6, 0, 2, 5}; !reflect.DeepEqual(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}
