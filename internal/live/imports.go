package live

import (
	"fmt"
	"sync"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/workspace"
)

// The dependencies between projects that only the code's imports show (a
// Go package importing another of the same module, a relative import
// across project directories) are the index's to read. A run's keys and
// an affected set need them (see package inputs): these functions hand
// the workspace over with them.

// Resolve is ws with the project dependencies g's imports imply: its
// depends_inferred edges, each with its first importing file.
func Resolve(ws *workspace.Workspace, g *graph.Graph) *workspace.Workspace {
	byProject := map[string][]workspace.InferredDep{}
	for _, e := range index.InferredDeps(g) {
		from, to := e.Source[len("project:"):], e.Target[len("project:"):]
		byProject[from] = append(byProject[from], workspace.InferredDep{Project: to, From: e.Via})
	}
	return ws.WithImports(byProject)
}

// Resolved loads the workspace at root for a one-shot CLI command that
// runs targets or computes what a change affects, with the dependencies
// its imports imply, read by the index (warm from cacheDir). When the
// index cannot be read, the workspace comes back unresolved with the
// error, which the caller shows as a warning: every project then counts
// as a dependency of every other, which is slow but never stale.
func Resolved(root, cacheDir string) (*workspace.Workspace, error) {
	ws, err := load(root, cacheDir)
	if err != nil {
		return nil, err
	}
	ix := NewIndexer(root, cacheDir)
	stop := onIndex(ix)
	v, _, err := ix.Sync(ws)
	stop()
	if err != nil {
		return ws, fmt.Errorf("the imports between projects could not be read (%v): every project counts as a dependency of every other", err)
	}
	return Resolve(ws, v.Graph()), nil
}

// resolved memoizes Resolve for one snapshot and one workspace.
type resolved struct {
	mu  sync.Mutex
	ws  *workspace.Workspace
	out *workspace.Workspace
}

// Resolved is the last workspace that loaded with the dependencies the
// current graph's imports imply (see Resolve): what the server's affected
// sets use. A run uses ForRun.
func (w *Workspace) Resolved() (*workspace.Workspace, error) {
	ws, err := w.Declared()
	if err != nil {
		return nil, err
	}
	snap, err := w.Current()
	if err != nil {
		return ws, nil // no graph: unresolved, every project a dependency
	}
	snap.res.mu.Lock()
	defer snap.res.mu.Unlock()
	if snap.res.ws != ws {
		snap.res.ws, snap.res.out = ws, Resolve(ws, snap.Graph())
	}
	return snap.res.out, nil
}

// ForRun is Resolved after bringing targets.yaml and the index up to date
// with the disk: a run must not key a target on imports older than the
// files it hashes (an agent writes a file and runs at once, before the
// watcher's batch arrives).
func (w *Workspace) ForRun() (*workspace.Workspace, error) {
	_ = w.Rebuild() // a failure keeps the last good workspace and graph
	return w.Resolved()
}
