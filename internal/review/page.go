package review

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/reviewstate"
	"github.com/corehq/core/internal/workspace"
)

// Page is the body of GET /api/v1/diff (and of `core diff --json`): the
// annotated change and the review session of the current branch.
type Page struct {
	Review
	Session reviewstate.Session `json:"session"`
}

// Source is what a page is made from. The server passes its live view;
// the CLI the same parts built for one run.
type Source struct {
	Root string
	// Declared is the workspace's targets.yaml as last loaded.
	Declared func() (*workspace.Workspace, error)
	// Index answers who references a changed symbol; nil leaves the
	// reach empty.
	Index    *index.Indexer
	Sessions *reviewstate.Store
	// Cache keeps what unchanged files gave the last answers; nil for none.
	Cache *Cache
}

// Page reads the change against base, annotates it and adds the session.
func (s Source) Page(ctx context.Context, base string) (Page, error) {
	p, _, err := s.TaggedPage(ctx, base)
	return p, err
}

// TaggedPage is Page with the ETag ETag would give it, taken from the same
// read ("" when the change moved while it was read).
func (s Source) TaggedPage(ctx context.Context, base string) (Page, string, error) {
	// The session's branch is found while the change is read.
	type loaded struct {
		s   reviewstate.Session
		key string
		err error
	}
	stored := make(chan loaded, 1)
	go func() {
		key, err := diff.SessionKey(ctx, s.Root)
		if err != nil {
			stored <- loaded{err: err}
			return
		}
		sess, err := s.Sessions.Load(key)
		stored <- loaded{sess, key, err}
	}()
	ch, err := diff.Read(ctx, s.Root, base)
	if err != nil {
		return Page{}, "", err
	}
	ws, err := s.Declared()
	if err != nil {
		return Page{}, "", err
	}
	var syms Symbols
	if s.Index != nil {
		syms = s.symbols(ws)
	}
	rev, err := Annotate(ctx, ws, s.Root, ch, syms)
	if err != nil {
		return Page{}, "", err
	}
	l := <-stored
	if l.err != nil {
		return Page{}, "", l.err
	}
	return Page{Review: rev, Session: s.view(l.s, ch)}, s.tag(ch.Stamp, l.key, l.s.Version), nil
}

// Context is the body of GET /api/v1/diff/context for symbol id.
func (s Source) Context(ctx context.Context, id string) (Context, error) {
	ws, err := s.Declared()
	if err != nil {
		return Context{}, err
	}
	return ReadContext(ctx, s.symbols(ws), id)
}

func (s Source) symbols(ws *workspace.Workspace) IndexSymbols {
	owners := graph.NewOwners(ws)
	return IndexSymbols{Root: s.Root, Index: s.Index, Cache: s.Cache, Owner: func(p string) string {
		if o := owners.Of(p); o != nil {
			return o.Name
		}
		return ""
	}}
}

// view is the branch's review state as the change now reads.
func (s Source) view(stored reviewstate.Session, ch diff.Change) reviewstate.Session {
	hashes := make(map[string]string, len(ch.Files))
	for _, f := range ch.Files {
		hashes[f.Path] = f.Hash
	}
	lines := map[string][]string{}
	return stored.View(hashes, func(p string, n int) (string, bool) {
		ls, ok := lines[p]
		if !ok {
			ls, _ = Lines(s.Root, path.Clean(p))
			lines[p] = ls
		}
		if n < 1 || n > len(ls) {
			return "", false
		}
		return ls[n-1], true
	})
}

// Lines are the lines of the workspace file rel as a review comment
// anchors to them: read inside the workspace, at most diff.TruncateAt
// bytes (readBounded), a line's "\r\n" ending cut, and no empty line after
// a final newline. A comment's write takes its text from here, and the
// session's view says it is outdated when its line reads otherwise.
func Lines(root, rel string) ([]string, error) {
	data, err := readBounded(root, rel)
	if err != nil {
		return nil, err
	}
	ls := strings.Split(string(data), "\n")
	if ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1] // a final newline ends the last line
	}
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls, nil
}

// ETag names the page Page would return, cheaply: the change's Stamp (the
// working tree, the index and HEAD, which also cover targets.yaml and the
// code the symbol reach reads), the declared coverage files' identities
// (outputs, usually ignored by git) and the session's version.
func (s Source) ETag(ctx context.Context, base string) (string, error) {
	stamp, key, err := diff.StampAndSession(ctx, s.Root, base)
	if err != nil {
		return "", err
	}
	sess, err := s.Sessions.Load(key)
	if err != nil {
		return "", err
	}
	return s.tag(stamp, key, sess.Version), nil
}

// tag is the page's ETag: the change's stamp, the declared coverage files'
// identities (outputs, usually ignored by git) and the session's version;
// "" when the stamp is (the change moved while it was read).
func (s Source) tag(stamp, key string, version int) string {
	if stamp == "" {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "stamp %s\n", stamp)
	if ws, err := s.Declared(); err == nil {
		for _, p := range ws.Projects {
			for _, t := range p.Targets {
				if t.Coverage != "" {
					diff.StatInto(h, t.ID(), filepath.Join(s.Root, filepath.FromSlash(p.Path), filepath.FromSlash(t.Coverage)))
				}
			}
		}
	}
	fmt.Fprintf(h, "session %s %d\n", key, version)
	return `"` + hex.EncodeToString(h.Sum(nil))[:32] + `"`
}

// SessionETag is the ETag of a session version, as POST answers it.
func SessionETag(version int) string { return `"` + strconv.Itoa(version) + `"` }
