package runner

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/corehq/core/internal/remotecache"
	repb "github.com/corehq/core/proto/gen/build/bazel/remote/execution/v2"
	cachev1 "github.com/corehq/core/proto/gen/core/cache/v1"
)

// The remote tier of the build cache. A target's key is its action key on
// the remote: /ac/<key> holds an ActionResult of the Remote Execution API
// whose output files (paths relative to the project directory, with their
// modes and modification times as node properties) and captured output
// are blobs in /cas/. What the API has no field for, the output
// directories with their modes and whether the output was cut, rides in
// one core.cache.v1.EntryInfo among its auxiliary metadata.
//
// A local miss asks the remote. A hit is downloaded into a local entry,
// each blob checked against its digest as it arrives, and published only
// when whole; then it is served like any local hit. So a corrupt or
// truncated remote entry is never restored, and a kill mid-download leaves
// at most a temporary directory. A target that ran and succeeded is
// uploaded in read-write mode, after the run goes on: each blob the server
// lacks (HEAD), then the action result last, so no action result names a
// blob the server was never sent.
//
// The remote never fails a build. The first time it is down, slow or
// refusing in a run, the run warns once and builds locally from then on;
// an entry that is corrupt is a miss with a warning of its own.

// RemoteStats counts what a run's remote cache did.
type RemoteStats struct {
	Hits      int   `json:"hits"`
	Uploaded  int   `json:"uploaded"` // action results stored
	BytesDown int64 `json:"bytes_down"`
	BytesUp   int64 `json:"bytes_up"`
}

// remoteRun is one Run's use of the remote cache.
type remoteRun struct {
	c    *remotecache.Client
	warn func(string)

	off            atomic.Bool // the remote failed: local only for the rest of the run
	hits, uploaded atomic.Int64
	down, up       atomic.Int64 // bytes of blobs and action results
	uploads        sync.WaitGroup
	uploadCtx      context.Context // the run's: a cancelled run stops uploading

	mu         sync.Mutex
	warnedDown bool
	bad        map[string]bool // blob digests found corrupt: uploaded again without asking
}

func newRemoteRun(ctx context.Context, c *remotecache.Client, warn func(string)) *remoteRun {
	if c == nil {
		return nil
	}
	return &remoteRun{c: c, warn: warn, bad: map[string]bool{}, uploadCtx: ctx}
}

func (rr *remoteRun) usable() bool { return rr != nil && !rr.off.Load() }

// fail turns the remote off for the rest of the run, warning once.
func (rr *remoteRun) fail(err error) {
	rr.off.Store(true)
	rr.mu.Lock()
	first := !rr.warnedDown
	rr.warnedDown = true
	rr.mu.Unlock()
	if first && rr.warn != nil {
		rr.warn(fmt.Sprintf("%v; building locally without the remote cache for the rest of this run", err))
	}
}

// problem handles an error of the remote: a missing blob is a miss; a
// corrupt entry is warned about (and its blob remembered, to be replaced);
// anything else turns the remote off.
func (rr *remoteRun) problem(target string, err error, blob string) {
	if errors.Is(err, remotecache.ErrNotFound) {
		// A blob the action result names is gone (a server evicts blobs
		// on its own schedule): a plain miss.
		return
	}
	if errors.Is(err, remotecache.ErrCorrupt) {
		if blob != "" {
			rr.mu.Lock()
			rr.bad[blob] = true
			rr.mu.Unlock()
		}
		if rr.warn != nil {
			rr.warn(fmt.Sprintf("%s: %v; not restored, building locally", target, err))
		}
		return
	}
	rr.fail(err)
}

func (rr *remoteRun) isBad(hash string) bool {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return rr.bad[hash]
}

// end waits for the uploads and returns the run's counts.
func (rr *remoteRun) end() RemoteStats {
	if rr == nil {
		return RemoteStats{}
	}
	rr.uploads.Wait()
	return RemoteStats{Hits: int(rr.hits.Load()), Uploaded: int(rr.uploaded.Load()), BytesDown: rr.down.Load(), BytesUp: rr.up.Load()}
}

// fetch looks key up on the remote and, on a hit, writes it into the local
// cache as a whole entry. It reports whether the local cache now has it.
// A hit that would restore what outputs do not declare is refused before
// a blob is fetched.
func (rr *remoteRun) fetch(ctx context.Context, cacheDir, target, key string, outputs []string) bool {
	if !rr.usable() {
		return false
	}
	ar, err := rr.c.GetAction(ctx, key)
	switch {
	case errors.Is(err, remotecache.ErrNotFound):
		return false
	case err != nil:
		if ctx.Err() == nil {
			rr.problem(target, err, "")
		}
		return false
	case ar.GetExitCode() != 0:
		return false // another client's failure: core caches successes only
	}
	rr.down.Add(int64(proto.Size(ar)))
	m, digests, stdout, err := entryOf(key, target, ar)
	if err == nil {
		if err = confined(m, outputs); err != nil {
			err = fmt.Errorf("%w: action result %s: %w", remotecache.ErrCorrupt, key[:12], err)
		}
	}
	if err != nil {
		rr.problem(target, err, "")
		return false
	}
	var out bytes.Buffer
	if len(ar.GetStdoutRaw()) > 0 {
		out.Write(ar.GetStdoutRaw())
	} else if err := rr.c.GetBlob(ctx, stdout, &out); err != nil {
		if ctx.Err() == nil {
			rr.problem(target, err, stdout.Hash)
		}
		return false
	}
	rr.down.Add(stdout.Size)
	m.Output = out.String()
	var bad string
	err = writeEntry(cacheDir, m, false, func(tmp string, m *cacheMeta) error {
		if len(m.Outputs) == 0 {
			return nil
		}
		return writeTarFrom(filepath.Join(tmp, outputsFile), m.Outputs, func(e *outputEntry, w io.Writer) error {
			d := digests[e.Path]
			if err := rr.c.GetBlob(ctx, d, w); err != nil {
				bad = d.Hash
				return err
			}
			rr.down.Add(d.Size)
			return nil
		})
	})
	if err != nil {
		if ctx.Err() == nil {
			rr.problem(target, err, bad)
		}
		return false
	}
	rr.hits.Add(1)
	return true
}

// upload sends a stored local entry to the remote, in the background of
// the run (end waits for it).
func (rr *remoteRun) upload(cacheDir, key string) {
	if !rr.usable() || !rr.c.Writable() {
		return
	}
	rr.uploads.Add(1)
	go func() {
		defer rr.uploads.Done()
		m, ok := lookup(cacheDir, key)
		if !ok || !rr.usable() {
			return
		}
		if err := rr.put(rr.uploadCtx, cacheDir, m); err != nil {
			if rr.uploadCtx.Err() == nil {
				rr.fail(err)
			}
			return
		}
		rr.uploaded.Add(1)
	}()
}

func (rr *remoteRun) put(ctx context.Context, cacheDir string, m cacheMeta) error {
	ar, blobs, err := actionOf(m)
	if err != nil {
		return nil // an entry from before digests were recorded: not uploaded
	}
	send := func(d remotecache.Digest, r io.Reader) error {
		if !rr.isBad(d.Hash) {
			has, err := rr.c.HasBlob(ctx, d)
			if err != nil || has {
				return err
			}
		}
		if err := rr.c.PutBlob(ctx, d, r); err != nil {
			return err
		}
		rr.up.Add(d.Size)
		return nil
	}
	if len(blobs) > 0 {
		f, err := os.Open(filepath.Join(buildDir(cacheDir), m.Key, outputsFile))
		if err != nil {
			return nil // trimmed meanwhile
		}
		defer f.Close()
		tr := tar.NewReader(f)
		for {
			h, err := tr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("upload %s: local entry: %w", m.Target, err)
			}
			if d, ok := blobs[h.Name]; ok && h.Typeflag == tar.TypeReg {
				if err := send(d, tr); err != nil {
					return err
				}
			}
		}
	}
	if err := send(remotecache.DigestOf([]byte(m.Output)), bytes.NewReader([]byte(m.Output))); err != nil {
		return err
	}
	if err := rr.c.PutAction(ctx, m.Key, ar); err != nil {
		return err
	}
	rr.up.Add(int64(proto.Size(ar)))
	return nil
}

// actionOf encodes a local entry as an action result, with the digest of
// each output file by path.
func actionOf(m cacheMeta) (*repb.ActionResult, map[string]remotecache.Digest, error) {
	info := &cachev1.EntryInfo{Target: m.Target, Truncated: m.Truncated}
	ar := &repb.ActionResult{
		StdoutDigest: remotecache.DigestOf([]byte(m.Output)).Proto(),
		ExecutionMetadata: &repb.ExecutedActionMetadata{
			Worker:                      "core",
			ExecutionStartTimestamp:     timestamppb.New(m.Created.Add(-m.DurationNS)),
			ExecutionCompletedTimestamp: timestamppb.New(m.Created),
		},
	}
	blobs := map[string]remotecache.Digest{}
	for _, e := range m.Outputs {
		props := &repb.NodeProperties{UnixMode: wrapperspb.UInt32(e.Mode)}
		switch e.Type {
		case 'f':
			if e.Digest == "" {
				return nil, nil, errors.New("entry has no digests")
			}
			d := remotecache.Digest{Hash: e.Digest, Size: e.Size}
			blobs[e.Path] = d
			props.Mtime = timestamppb.New(time.Unix(0, e.MtimeNS))
			ar.OutputFiles = append(ar.OutputFiles, &repb.OutputFile{Path: e.Path, Digest: d.Proto(), IsExecutable: e.Mode&0o111 != 0, NodeProperties: props})
		case 'l':
			ar.OutputSymlinks = append(ar.OutputSymlinks, &repb.OutputSymlink{Path: e.Path, Target: e.Link, NodeProperties: props})
		case 'd':
			info.Directories = append(info.Directories, &cachev1.OutputDir{Path: e.Path, Mode: e.Mode})
		}
	}
	aux, err := anypb.New(info)
	if err != nil {
		return nil, nil, err
	}
	ar.ExecutionMetadata.AuxiliaryMetadata = []*anypb.Any{aux}
	return ar, blobs, nil
}

// entryOf decodes an action result into a local entry (without its
// output), the digest of each file by path and the output's digest. It
// refuses what a restore must not write: a path that leaves the project
// directory, a path listed twice, a file under a symlink.
func entryOf(key, target string, ar *repb.ActionResult) (cacheMeta, map[string]remotecache.Digest, remotecache.Digest, error) {
	m := cacheMeta{Key: key, Target: target}
	if em := ar.GetExecutionMetadata(); em != nil {
		m.Created = em.GetExecutionCompletedTimestamp().AsTime()
		m.DurationNS = m.Created.Sub(em.GetExecutionStartTimestamp().AsTime())
		for _, a := range em.GetAuxiliaryMetadata() {
			info := &cachev1.EntryInfo{}
			if a.MessageIs(info) && a.UnmarshalTo(info) == nil {
				m.Truncated = info.GetTruncated()
				for _, d := range info.GetDirectories() {
					m.Outputs = append(m.Outputs, outputEntry{Path: d.GetPath(), Type: 'd', Mode: d.GetMode() & 0o777})
				}
			}
		}
	}
	digests := map[string]remotecache.Digest{}
	mode := func(p *repb.NodeProperties, exec bool) uint32 {
		if p.GetUnixMode() != nil {
			return p.GetUnixMode().GetValue() & 0o777
		}
		if exec {
			return 0o755
		}
		return 0o644
	}
	for _, f := range ar.GetOutputFiles() {
		d, err := remotecache.FromProto(f.GetDigest())
		if err != nil {
			return m, nil, d, err
		}
		e := outputEntry{Path: f.GetPath(), Type: 'f', Mode: mode(f.GetNodeProperties(), f.GetIsExecutable()), Size: d.Size, Digest: d.Hash}
		if t := f.GetNodeProperties().GetMtime(); t != nil {
			e.MtimeNS = t.AsTime().UnixNano()
		}
		digests[e.Path] = d
		m.Outputs = append(m.Outputs, e)
	}
	for _, l := range ar.GetOutputSymlinks() {
		m.Outputs = append(m.Outputs, outputEntry{Path: l.GetPath(), Type: 'l', Mode: mode(l.GetNodeProperties(), false), Link: l.GetTarget()})
	}
	if len(ar.GetOutputDirectories()) > 0 {
		return m, nil, remotecache.Digest{}, fmt.Errorf("%w: action result %s has output directories as trees, which core does not write", remotecache.ErrCorrupt, key[:12])
	}
	sort.Slice(m.Outputs, func(i, j int) bool { return m.Outputs[i].Path < m.Outputs[j].Path })
	links := map[string]bool{}
	for i, e := range m.Outputs {
		if !safeRel(e.Path) {
			return m, nil, remotecache.Digest{}, fmt.Errorf("%w: action result %s names the path %q outside its project", remotecache.ErrCorrupt, key[:12], e.Path)
		}
		if i > 0 && m.Outputs[i-1].Path == e.Path {
			return m, nil, remotecache.Digest{}, fmt.Errorf("%w: action result %s names %q twice", remotecache.ErrCorrupt, key[:12], e.Path)
		}
		for dir := filepath.Dir(filepath.FromSlash(e.Path)); dir != "."; dir = filepath.Dir(dir) {
			if links[filepath.ToSlash(dir)] {
				return m, nil, remotecache.Digest{}, fmt.Errorf("%w: action result %s puts %q under a symlink", remotecache.ErrCorrupt, key[:12], e.Path)
			}
		}
		if e.Type == 'l' {
			links[e.Path] = true
		}
	}
	stdout, err := remotecache.FromProto(ar.GetStdoutDigest())
	if err != nil {
		return m, nil, stdout, err
	}
	if stdout.Size > OutputCap+64<<10 {
		return m, nil, stdout, fmt.Errorf("%w: action result %s has %d bytes of output, over core's cap", remotecache.ErrCorrupt, key[:12], stdout.Size)
	}
	return m, digests, stdout, nil
}
