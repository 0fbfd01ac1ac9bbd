package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corehq/core/internal/fsx"
)

// fileDigest is what the key records of one input file.
type fileDigest struct {
	kind byte // 'f' file, 'x' executable file, 'l' symlink (to a non-file), 's' a project's part of a lockfile
	sum  [32]byte
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashFile hashes one input. Symlinks to files are followed (their content
// is what a tool reads); other symlinks are recorded by their target.
func hashFile(abs string) (fileDigest, error) {
	d, _, err := hashFileID(abs)
	return d, err
}

// hashFileID is hashFile with the identity of the file it read (none for
// a symlink to a non-file).
func hashFileID(abs string) (fileDigest, fsx.Identity, error) {
	f, err := fsx.Open(abs)
	if err != nil {
		if target, lerr := os.Readlink(abs); lerr == nil {
			return fileDigest{kind: 'l', sum: sha256.Sum256([]byte(target))}, fsx.Identity{}, nil
		}
		return fileDigest{}, fsx.Identity{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fileDigest{}, fsx.Identity{}, err
	}
	if !fi.Mode().IsRegular() {
		target, _ := os.Readlink(abs)
		return fileDigest{kind: 'l', sum: sha256.Sum256([]byte(target))}, fsx.Identity{}, nil
	}
	id := fsx.IdentityOf(fi)
	kind := byte('f')
	if fi.Mode().Perm()&0o111 != 0 {
		kind = 'x'
	}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	// Small files (most of them) in one read and one Sum256.
	n, err := io.ReadFull(f, buf)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fileDigest{kind: kind, sum: sha256.Sum256(buf[:n])}, id, nil
	}
	if err != nil {
		return fileDigest{}, id, err
	}
	h := sha256.New()
	h.Write(buf[:n])
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return fileDigest{}, id, err
	}
	var d fileDigest
	d.kind = kind
	h.Sum(d.sum[:0])
	return d, id, nil
}

// hashWorkers is how many files one target hashes at once.
var hashWorkers = max(4, 2*runtime.GOMAXPROCS(0))

// hashMemo keeps the digests a run has computed, so that a file that is
// an input of several targets, or in a dependency project's part, is read
// once per run. Nothing but the run's own targets writes into the
// workspace while it runs (what a person edits meanwhile is racy with or
// without it), so a digest holds without a look at the file until a
// target of the run executes or a cache hit restores outputs: each bumps
// gen. A digest of an older generation holds when the file's identity
// (size, times, inode) is what it was, and that identity was not racy
// (written within the file system's clock tick of its hashing); else the
// file is read again.
type hashMemo struct {
	gen atomic.Uint64
	mu  sync.Mutex
	m   map[string]memoDigest // by absolute path
}

type memoDigest struct {
	gen uint64
	d   fileDigest
	id  fsx.Identity // zero: not to be vouched for by a stat
}

func newHashMemo() *hashMemo { return &hashMemo{m: map[string]memoDigest{}} }

// changed says the run may have written into the workspace.
func (m *hashMemo) changed() {
	if m != nil {
		m.gen.Add(1)
	}
}

// hash returns abs's digest, from the memo when it is of this generation.
func (m *hashMemo) hash(abs string) (fileDigest, error) {
	if m == nil {
		return hashFile(abs)
	}
	gen := m.gen.Load() // before reading: a write during the read makes it stale
	m.mu.Lock()
	e, ok := m.m[abs]
	m.mu.Unlock()
	if ok && e.gen == gen {
		return e.d, nil
	}
	if ok && e.id.Known() {
		if fi, err := os.Stat(abs); err == nil && fsx.IdentityOf(fi) == e.id {
			m.put(abs, memoDigest{gen: gen, d: e.d, id: e.id})
			return e.d, nil
		}
	}
	d, id, err := hashFileID(abs)
	if err != nil {
		return d, err
	}
	if id.Racy(time.Now()) {
		id = fsx.Identity{}
	}
	m.put(abs, memoDigest{gen: gen, d: d, id: id})
	return d, nil
}

func (m *hashMemo) put(abs string, e memoDigest) {
	m.mu.Lock()
	m.m[abs] = e
	m.mu.Unlock()
}

// hashFiles hashes the files (relative to dir) in parallel.
func hashFiles(ctx context.Context, memo *hashMemo, dir string, files []string) ([]fileDigest, error) {
	out := make([]fileDigest, len(files))
	workers := min(len(files), hashWorkers)
	if len(files) < 8 {
		workers = 1
	}
	var (
		next     atomic.Int64
		firstErr error
		errOnce  sync.Once
		wg       sync.WaitGroup
	)
	work := func() {
		for {
			i := int(next.Add(1) - 1)
			if i >= len(files) || ctx.Err() != nil {
				return
			}
			d, err := memo.hash(filepath.Join(dir, filepath.FromSlash(files[i])))
			if err != nil {
				errOnce.Do(func() { firstErr = fmt.Errorf("hash input %s: %w", files[i], err) })
				next.Store(int64(len(files)))
				return
			}
			out[i] = d
		}
	}
	for range workers - 1 {
		wg.Add(1)
		go func() { defer wg.Done(); work() }()
	}
	work()
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// inputDigest is the hash of a list of files: a target's own inputs, a
// project's part, the global inputs. It keeps what was hashed, for the
// key's parts (KeyParts).
type inputDigest struct {
	files   int
	sum     [32]byte
	names   []string
	digests []fileDigest
}

// digestFiles hashes files (relative to dir) into one digest.
func digestFiles(ctx context.Context, memo *hashMemo, dir string, files []string) (inputDigest, error) {
	digests, err := hashFiles(ctx, memo, dir, files)
	if err != nil {
		return inputDigest{}, err
	}
	return digestOf(files, digests), nil
}

// digestOf folds files and their digests into one digest.
func digestOf(files []string, digests []fileDigest) inputDigest {
	h := sha256.New()
	var e encoder
	e.h = h
	e.int(len(files))
	for i, f := range files {
		e.str(f)
		e.byte(digests[i].kind)
		h.Write(digests[i].sum[:])
	}
	d := inputDigest{files: len(files), names: files, digests: digests}
	h.Sum(d.sum[:0])
	return d
}

// hashes lists what d hashed as FileHash.
func (d inputDigest) hashes() []FileHash {
	out := make([]FileHash, len(d.names))
	for i, f := range d.names {
		out[i] = FileHash{Path: f, Kind: string(d.digests[i].kind), Hash: hex.EncodeToString(d.digests[i].sum[:])}
	}
	return out
}
