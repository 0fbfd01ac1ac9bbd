package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/parallel"
	"github.com/corehq/core/internal/workspace"
)

// The encoded default graph of the last SyncEncoded, with what it was
// built from: the key of the workspace as loaded, the walk's options and
// the binary, and what the walk stat'ed (every directory, .gitignore,
// indexed file and symlink, with its size, times and inode). The graph is
// a function of the files the walk finds and their sizes and times (a
// record is reused on the same size and time, as Sync does), and the walk
// finds the same files while none of what it stat'ed changed: an entry
// added, removed or renamed changes its directory, an edit its file, a
// .gitignore edited in place itself. So a pass that stats all of that and
// finds it the same serves the stored bytes without reading a directory or
// a record, or assembling anything, the way git's untracked cache trusts a
// directory's time. A mismatch is all the invalidation there is: nothing
// else has to remember to remove the file.
const (
	snapshotName    = "graph.json.bin"
	snapshotMagic   = "CGRJ"
	snapshotVersion = 2
)

// seenPath is one path a recording walk stat'ed, and what it saw.
type seenPath struct {
	path   string // relative, slash-separated
	follow bool   // stat'ed through a symlink
	id     statID
}

// statID is what a stat says of a path, as far as a walk depends on it
// (idOf, per platform).
type statID struct {
	missing            bool   // the stat failed
	mode               uint32 // the platform's: st_mode on Linux
	size, mtime, ctime int64
	ino                uint64
}

// note records the stat of rel: through a symlink when follow, else
// lstat.
func (w *walker) note(rel string, follow bool) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	fi, err := stat(filepath.Join(w.root, filepath.FromSlash(rel)))
	w.seen = append(w.seen, seenPath{path: rel, follow: follow, id: idOf(fi, err)})
}

// unchanged reports whether every path stats as it did. The stats wait on
// the kernel, not a core: on two cores they take 0.6 of the time serially.
func unchanged(root string, seen []seenPath) bool {
	st, err := newStatter(root)
	if err != nil {
		return false
	}
	defer st.close()
	var changed atomic.Bool
	parallel.For(len(seen), func(i int) {
		if !changed.Load() && st.stat(seen[i].path, seen[i].follow) != seen[i].id {
			changed.Store(true)
		}
	})
	return !changed.Load()
}

// SyncEncoded is Sync for a caller that wants only the default graph's
// JSON (the bytes of graph.Encode, in pieces that follow each other:
// graph.EncodeParts), such as `core graph --json`. When
// nothing the last SyncEncoded of this workspace stat'ed changed, it
// returns the bytes that call stored, and the Indexer stays as it was (not
// synced); otherwise it syncs, encodes and stores the result.
// PrefetchEncoded, called first, lets it start before the workspace is
// loaded; the tree is then compared as of that call.
func (ix *Indexer) SyncEncoded(ws *workspace.Workspace, w io.Writer) error {
	start := time.Now()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	lock, err := ix.lock()
	if err != nil {
		return err
	}
	defer lock.Unlock()
	key := ix.snapshotKey(ws)
	path := filepath.Join(ix.store.dir, snapshotName)
	var s storedGraph
	if ix.prefetched != nil {
		s = <-ix.prefetched
		ix.prefetched = nil
	} else {
		s = readStored(ix.root, path)
	}
	if s.graph != nil && s.key == key {
		_, err := w.Write(s.graph)
		return err
	} else if s.release != nil {
		s.release()
	}
	opts := ix.walkOptions(ws)
	opts.record = true
	ix.prog.start()
	walked := walk(ix.root, opts)
	v, _, err := ix.syncLocked(ws, start, walked)
	if err != nil {
		return err
	}
	if ix.gc.Limit != nil && ix.prog.toParse.Load() > bigPass { // as syncLocked's tail
		defer boundHeap(ix.gc.Limit, tailBound)()
	}
	g := v.Graph()
	// The files' parts of the graph, kept so that an Update redraws only
	// its own files', are garbage to a caller that wants the encoding
	// (core graph --json, which then ends): an Update after it assembles
	// the whole graph again, as an Indexer's first Update does.
	ix.asm = nil
	if racy(walked.seen, start) || ix.store.ensure() != nil {
		return g.EncodeTo(w)
	}
	// The answer and the stored graph are written as the graph is
	// encoded, neither held whole. Without fsync: the checksum catches a
	// torn file, and a lost one is only a slower next run, as is one
	// whose write failed (the answer is written whole all the same).
	var answered error
	_ = fsx.ReplaceFileFrom(path, 0o600, func(f io.Writer) error {
		stored := &firstError{w: f}
		sum := crc32.NewIEEE() // checksum's, as the bytes go by
		head := snapshotHead(key, walked.seen)
		_, _ = stored.Write(head)
		_, _ = sum.Write(head)
		if answered = g.EncodeTo(io.MultiWriter(w, sum, stored)); answered != nil {
			return answered
		}
		_, _ = stored.Write(binary.LittleEndian.AppendUint32(nil, sum.Sum32()))
		return stored.err
	})
	return answered
}

// firstError is a writer that keeps its first error and writes nothing
// after it, reporting success: the stored graph's file, whose failure
// must not stop the answer written beside it.
type firstError struct {
	w   io.Writer
	err error
}

func (f *firstError) Write(p []byte) (int, error) {
	if f.err == nil {
		_, f.err = f.w.Write(p)
	}
	return len(p), nil
}

// racyMargin is how recent a change may be for a stat to be trusted to
// show the next one. A file system stamps changes with a clock that
// moves in ticks (a few milliseconds on Linux): a path changed in the tick
// in which the walk stat'ed it may change again in that tick with the
// same times, which a later stat cannot tell (git calls this racy). A
// path changed no later than the margin before the walk started is in an
// earlier tick than the walk's, and any later change moves its times.
const racyMargin = 100 * time.Millisecond

// racy reports whether a walk that started at start saw a path changed
// too recently to trust its times; the graph is then not stored, and the
// next pass walks again.
func racy(seen []seenPath, start time.Time) bool {
	limit := start.Add(-racyMargin).UnixNano()
	for _, s := range seen {
		if !s.id.missing && (s.id.mtime >= limit || s.id.ctime >= limit) {
			return true
		}
	}
	return false
}

// snapshotKey hashes what the graph is built from besides the files: the
// workspace, the walk's options and the binary. The binary is named by
// its path, size and time rather than a version constant: the graph's
// encoding and assembly change between builds without anyone bumping a
// number.
func (ix *Indexer) snapshotKey(ws *workspace.Workspace) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	field := func(s string) {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(s))))
		h.Write([]byte(s))
	}
	field(strconv.Itoa(cacheVersion))
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			field(exe + "\x00" + strconv.FormatInt(st.Size(), 10) + "\x00" + strconv.FormatInt(st.ModTime().UnixNano(), 10))
		}
	}
	field(ix.root)
	field(ix.store.dir) // the cache directory, which the walk skips
	field(strconv.FormatInt(ix.maxSize, 10))
	// Every exported field of the workspace, which is what assembly reads.
	wsJSON, _ := json.Marshal(ws)
	field(string(wsJSON))
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// snapshotHead is the stored graph's file up to the graph's JSON, which
// follows it, and then the checksum of both (SyncEncoded writes them as
// the graph is encoded).
func snapshotHead(key [sha256.Size]byte, seen []seenPath) []byte {
	e := newEncoder(len(key) + 32*len(seen))
	e.body = append(e.body, key[:]...)
	e.uint(uint64(len(seen)))
	for _, s := range seen {
		e.str(s.path)
		flags := uint64(0)
		if s.follow {
			flags |= 1
		}
		if s.id.missing {
			flags |= 2
		}
		e.uint(flags)
		e.uint(uint64(s.id.mode))
		e.int(s.id.size)
		e.int(s.id.mtime)
		e.int(s.id.ctime)
		e.uint(s.id.ino)
	}
	return e.head(snapshotMagic, snapshotVersion, 0)
}

// storedGraph is the stored graph, if its file is whole and nothing it saw
// changed, and the key it was stored under. The graph's bytes are the
// file's, mapped read-only (mapFile) until release; a graph that is served
// stays mapped for the life of the process, which for `core graph --json`
// ends once they are written.
type storedGraph struct {
	key     [sha256.Size]byte
	graph   []byte
	release func()
}

// PrefetchEncoded starts the part of SyncEncoded that needs no workspace:
// reading the stored graph and stat'ing what it saw. The stats wait on the
// kernel, so a caller that loads the workspace meanwhile (`core graph
// --json`) overlaps the two; the next SyncEncoded takes the result. The
// stats are wasted when the key turns out to differ, on a pass that is
// about to walk the whole tree. While one is pending, another call does
// nothing. It is for a one-shot caller: a result no SyncEncoded takes (the
// workspace failed to load) stays mapped until the process ends.
func (ix *Indexer) PrefetchEncoded() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.prefetched != nil {
		return
	}
	ch := make(chan storedGraph, 1)
	root, path := ix.root, filepath.Join(ix.store.dir, snapshotName)
	go func() { ch <- readStored(root, path) }()
	ix.prefetched = ch
}

// readStored reads the stored graph at path; its graph is nil when the
// file is missing or damaged, or something it saw changed.
func readStored(root, path string) storedGraph {
	data, release, err := mapFile(path)
	if err != nil {
		return storedGraph{}
	}
	key, seen, graphJSON, err := decodeMapped(data)
	if err != nil || !unchanged(root, seen) {
		release()
		return storedGraph{}
	}
	return storedGraph{key: key, graph: graphJSON, release: release}
}

// decodeMapped is decodeSnapshot over a mapped file: a fault on the
// mapping (the file cut short under it, a failing disk) is an error like
// a damaged file's, not the end of the process. Any other panic is a bug.
func decodeMapped(data []byte) (key [sha256.Size]byte, seen []seenPath, graphJSON []byte, err error) {
	defer readingMapped()()
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			err = errCorrupt
		}
	}()
	return decodeSnapshot(data)
}

// decodeSnapshot reads what encodeSnapshot wrote.
func decodeSnapshot(data []byte) (key [sha256.Size]byte, seen []seenPath, graphJSON []byte, err error) {
	d, err := newDecoder(data, snapshotMagic, snapshotVersion)
	if err != nil {
		return key, nil, nil, err
	}
	if len(d.data)-d.off < len(key) {
		return key, nil, nil, errCorrupt
	}
	key = [sha256.Size]byte(d.data[d.off : d.off+len(key)])
	d.off += len(key)
	seen = make([]seenPath, d.count())
	for i := range seen {
		s := &seen[i]
		s.path = d.str()
		flags := d.uint()
		s.follow, s.id.missing = flags&1 != 0, flags&2 != 0
		s.id.mode = uint32(d.uint())
		s.id.size, s.id.mtime, s.id.ctime = d.int(), d.int(), d.int()
		s.id.ino = d.uint()
	}
	if d.err != nil {
		return key, nil, nil, d.err
	}
	return key, seen, d.data[d.off:], nil
}
