package review

import (
	"context"
	"testing"

	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/testbed"
)

// repo is a real git repository in a temporary directory.
type repo struct {
	*testbed.GitRepo
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	g := testbed.NewGitRepo(t, "main")
	return &repo{GitRepo: g, t: t, dir: g.Dir}
}

func (r *repo) write(path, content string) { r.t.Helper(); r.Write(path, content) }
func (r *repo) commit(msg string)          { r.t.Helper(); r.Commit(msg) }

// read is the change the review annotates.
func (r *repo) read(base string) diff.Change {
	r.t.Helper()
	ch, err := diff.Read(context.Background(), r.dir, base)
	if err != nil {
		r.t.Fatalf("Read: %v", err)
	}
	return ch
}
