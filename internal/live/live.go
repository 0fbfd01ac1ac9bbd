// Package live keeps the server's current view of the workspace: the graph
// built from targets.yaml and the files it names, pre-encoded once per change
// so that every read serves the same bytes. A broken targets.yaml never takes
// the view down: the last good graph stays served and the problem is kept as
// a diagnostic (and published) until the file is fixed.
package live

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/watch"
	"github.com/corehq/core/internal/workspace"
)

// Snapshot is one version of the workspace graph, encoded.
type Snapshot struct {
	Version uint64
	JSON    []byte // exactly what `core graph --json` prints
	Gzip    []byte // JSON, gzip-compressed once
	ETag    string // strong, quoted
	Nodes   int
	Edges   int
	BuiltAt time.Time
}

// Publisher receives events (the SSE hub).
type Publisher interface {
	Publish(kind string, data []byte)
}

// Workspace is the live view of one workspace.
type Workspace struct {
	root     string
	cacheDir string
	log      zerolog.Logger
	pub      Publisher

	cur     atomic.Pointer[Snapshot]
	mu      sync.Mutex // serialises rebuilds
	diag    atomic.Pointer[diagnostic]
	version uint64
}

type diagnostic struct{ err error }

// ErrNoGraph is returned before the first good build.
var ErrNoGraph = errors.New("the workspace has no graph yet")

// New builds the first graph of the workspace at root. A broken targets.yaml
// is not fatal: the view starts empty with the diagnostic set.
func New(root, cacheDir string, pub Publisher, log zerolog.Logger) *Workspace {
	w := &Workspace{root: root, cacheDir: cacheDir, pub: pub, log: log}
	_ = w.Rebuild()
	return w
}

// Root is the workspace root.
func (w *Workspace) Root() string { return w.root }

// Current returns the latest good snapshot, or an error explaining why there
// is none (the diagnostic of a workspace that never loaded).
func (w *Workspace) Current() (*Snapshot, error) {
	if s := w.cur.Load(); s != nil {
		return s, nil
	}
	if err := w.Diagnostic(); err != nil {
		return nil, err
	}
	return nil, ErrNoGraph
}

// Diagnostic is the current problem of the workspace, nil when it loads.
func (w *Workspace) Diagnostic() error {
	if d := w.diag.Load(); d != nil {
		return d.err
	}
	return nil
}

// Build loads the workspace and builds its knowledge graph from disk.
func Build(root string) (*graph.Graph, error) {
	ws, err := workspace.Load(root)
	if err != nil {
		return nil, err
	}
	return graph.Build(ws, os.DirFS(root))
}

// Rebuild rebuilds the graph from disk. On success it installs a new
// snapshot (publishing `graph` when the bytes changed); on failure it keeps
// the last good snapshot and publishes a diagnostic.
func (w *Workspace) Rebuild() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	g, err := Build(w.root)
	if err != nil {
		prev := w.diag.Swap(&diagnostic{err: err})
		if prev == nil || prev.err.Error() != err.Error() {
			w.log.Warn().Str(logx.File, workspace.FileName).Str(logx.Reason, err.Error()).Msg("workspace does not load; serving the last good graph")
			w.publish(events.KindDiagnostic, map[string]any{"source": workspace.FileName, "message": err.Error()})
		}
		return err
	}
	if prev := w.diag.Swap(nil); prev != nil {
		w.log.Info().Str(logx.File, workspace.FileName).Msg("workspace loads again")
		w.publish(events.KindDiagnostic, map[string]any{"source": workspace.FileName, "message": ""})
	}
	data := g.Encode()
	if old := w.cur.Load(); old != nil && bytes.Equal(old.JSON, data) {
		return nil
	}
	w.version++
	sum := sha256.Sum256(data)
	snap := &Snapshot{
		Version: w.version,
		JSON:    data,
		Gzip:    gzipBytes(data),
		ETag:    `"` + hex.EncodeToString(sum[:16]) + `"`,
		Nodes:   len(g.Nodes),
		Edges:   len(g.Edges),
		BuiltAt: time.Now(),
	}
	w.cur.Store(snap)
	w.log.Info().Uint64(logx.Version, snap.Version).Int(logx.Nodes, snap.Nodes).Int(logx.Edges, snap.Edges).Msg("graph built")
	w.publish(events.KindGraph, map[string]any{"version": snap.Version, "nodes": snap.Nodes, "edges": snap.Edges, "etag": snap.ETag})
	return nil
}

func (w *Workspace) publish(kind string, payload map[string]any) {
	if w.pub == nil {
		return
	}
	data, _ := json.Marshal(payload)
	w.pub.Publish(kind, data)
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// Ignore says which paths the watcher skips: version control, dependency
// trees and the cache directory (core's own writes must not trigger
// rebuilds).
func (w *Workspace) Ignore(rel string, _ bool) bool {
	for _, seg := range strings.Split(rel, "/") {
		switch seg {
		case ".git", ".core", "node_modules":
			return true
		}
	}
	if w.cacheDir != "" {
		if r, err := filepath.Rel(w.root, w.cacheDir); err == nil && !strings.HasPrefix(r, "..") {
			r = filepath.ToSlash(r)
			if rel == r || strings.HasPrefix(rel, r+"/") {
				return true
			}
		}
	}
	return false
}

// Watch rebuilds on every debounced batch of changes until ctx ends. It
// returns the watcher's set-up error, if any, at once.
func (w *Workspace) Watch(ctx context.Context, debounce time.Duration) error {
	wt, err := watch.New(w.root, w.Ignore, debounce)
	if err != nil {
		return err
	}
	if err := wt.LimitError(); err != nil {
		w.log.Warn().Str(logx.Reason, err.Error()).Msg("file watching is partial")
	}
	go func() {
		_ = wt.Run(ctx, func(b watch.Batch) { _ = w.Rebuild() })
	}()
	return nil
}
