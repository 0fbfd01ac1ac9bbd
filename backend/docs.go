package backend

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/quote"
)

// Doc is a document of the workspace as the graph knows it: one of the
// files targets.yaml's docs: globs name.
type Doc struct {
	Path  string `json:"path"`
	Title string `json:"title,omitempty"`
}

// Docs are the workspace's documents, in the graph's order.
func (g *Graph) Docs() ([]Doc, error) {
	snap, err := g.Current()
	if err != nil {
		return nil, err
	}
	var docs []Doc
	for _, n := range snap.Graph().Nodes {
		if n.Kind == graph.KindDoc {
			docs = append(docs, Doc{Path: n.Path, Title: n.Title})
		}
	}
	return docs, nil
}

// TextFile is a file's text for an agent, cut to the answer's budget.
type TextFile struct {
	Path string
	Text string
	Cut  bool
}

// Doc is the text of the workspace document at path, at most the answer's
// budget. Only a doc node of the graph is read, and only inside the
// workspace: path must be clean and local (fsx.CleanLocal: no "..", not
// absolute), and the file is opened through an os.Root of the workspace,
// so a symbolic link that leads out of it is refused too.
func (g *Graph) Doc(path string) (TextFile, error) {
	if len(path) > 4096 || !fsx.CleanLocal(path) {
		return TextFile{}, apierr.BadRequest("%s is not a path inside the workspace", quote.Short(path))
	}
	snap, err := g.Current()
	if err != nil {
		return TextFile{}, err
	}
	id := graph.DocID(path)
	for _, n := range snap.Graph().Nodes {
		if n.Kind == graph.KindDoc && n.ID == id {
			return g.readText(path)
		}
	}
	return TextFile{}, apierr.NotFound("%s is not a document of the workspace: the docs resource lists them", quote.Short(path))
}

// TargetsFile is the text of targets.yaml, at most the answer's budget.
func (g *Graph) TargetsFile() (TextFile, error) { return g.readText("targets.yaml") }

// readText reads the regular file rel inside the workspace root (an
// os.Root: no way out by "..", an absolute path or a symbolic link),
// holding at most the budget and a byte of it.
func (g *Graph) readText(rel string) (TextFile, error) {
	if !fsx.CleanLocal(rel) {
		return TextFile{}, apierr.BadRequest("%s is not a path inside the workspace", quote.Short(rel))
	}
	rt, err := os.OpenRoot(g.ws.Root())
	if err != nil {
		return TextFile{}, err
	}
	defer rt.Close()
	name := filepath.FromSlash(rel)
	// Regular files only, checked before the open (opening a FIFO would
	// block until a writer came) and again after it (swapped since).
	if fi, err := rt.Stat(name); err != nil || !fi.Mode().IsRegular() {
		return TextFile{}, apierr.NotFound("%s is not a regular file inside the workspace", quote.Short(rel))
	}
	f, err := rt.Open(name)
	if err != nil {
		return TextFile{}, apierr.NotFound("cannot read %s inside the workspace", quote.Short(rel))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return TextFile{}, apierr.NotFound("%s is not a regular file", quote.Short(rel))
	}
	data, err := io.ReadAll(io.LimitReader(f, patchBudget+1))
	if err != nil {
		return TextFile{}, err
	}
	text, cut := fitText(string(data), len(data) > patchBudget, patchBudget)
	if cut {
		text += fmt.Sprintf("\n[core: %s is longer than the answer's budget of %d KB and was cut here]\n", rel, AnswerBudget>>10)
	}
	return TextFile{Path: rel, Text: text, Cut: cut}, nil
}

// OnWorkspaceChange calls fn after each change the live workspace
// announces on its event stream (what /api/v1/events streams): a new graph
// or new symbols (a doc's edit is one or the other), or targets.yaml
// breaking or loading again. fn runs inside the event's publishing, so it
// must return at once (hand the news on, a send that does not wait). A
// backend without a hub never calls it.
func (b *Backend) OnWorkspaceChange(fn func()) (stop func()) {
	if b.Hub == nil {
		return func() {}
	}
	return b.Hub.Listen(func(kind string, _ []byte) {
		if kind == events.KindGraph || kind == events.KindDiagnostic {
			fn()
		}
	})
}
