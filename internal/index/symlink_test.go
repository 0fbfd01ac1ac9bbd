package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/workspace"
)

// TestASymlinkIsFollowedOnlyWhereItStaysInTheWorkspace: an untracked
// symlink out of the workspace (evil.go -> /elsewhere/secret.go) would put
// another tree's file and symbols in the graph and in find_symbol; one
// whose target resolves outside the workspace root, by any path, is never
// followed, by a full walk or by an update, while a link to a file inside
// is indexed as that file.
func TestASymlinkIsFollowedOnlyWhereItStaysInTheWorkspace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fact    string
		link    func(t *testing.T, root, outside string) // makes root/lib/link.go, or root/lib/ext
		path    string                                   // what the link adds when followed
		changed string                                   // what the watcher reports
		indexed bool
	}{
		{"an absolute link to a file outside is not indexed", func(t *testing.T, root, outside string) {
			symlink(t, filepath.Join(outside, "secret.go"), filepath.Join(root, "lib", "link.go"))
		}, "lib/link.go", "lib/link.go", false},
		{"a relative link climbing out of the workspace is not indexed", func(t *testing.T, root, outside string) {
			// Relative to where the link really is (root is a link).
			dir, err := filepath.EvalSymlinks(filepath.Join(root, "lib"))
			if err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(dir, filepath.Join(outside, "secret.go"))
			if err != nil {
				t.Fatal(err)
			}
			symlink(t, rel, filepath.Join(root, "lib", "link.go"))
		}, "lib/link.go", "lib/link.go", false},
		{"a link to an inside link that leads out is not indexed", func(t *testing.T, root, outside string) {
			symlink(t, filepath.Join(outside, "secret.go"), filepath.Join(root, "lib", "hop.go"))
			symlink(t, "hop.go", filepath.Join(root, "lib", "link.go"))
		}, "lib/link.go", "lib/link.go", false},
		{"a link to a directory outside is not followed", func(t *testing.T, root, outside string) {
			symlink(t, outside, filepath.Join(root, "lib", "ext"))
		}, "lib/ext/secret.go", "lib/ext", false},
		{"a relative link to a file inside is indexed as that file", func(t *testing.T, root, outside string) {
			symlink(t, "util.go", filepath.Join(root, "lib", "link.go"))
		}, "lib/link.go", "lib/link.go", true},
		{"an absolute link to a file inside is indexed", func(t *testing.T, root, outside string) {
			symlink(t, filepath.Join(root, "lib", "util.go"), filepath.Join(root, "lib", "link.go"))
		}, "lib/link.go", "lib/link.go", true},
	} {
		t.Run(c.fact, func(t *testing.T) {
			t.Parallel()
			outside := t.TempDir()
			writeTree(t, outside, map[string]string{"secret.go": "package lib\n\nfunc Secret() {}\n"})
			// Opened through a symlink to its directory, as a workspace may
			// be: inside is judged against the directory, not the link.
			real := newFixture(t)
			root := filepath.Join(t.TempDir(), "ws")
			symlink(t, real, root)
			ix := New(root, t.TempDir(), Options{})
			syncIndex(t, ix, root)
			c.link(t, root, outside)
			ws, err := workspace.Load(root)
			if err != nil {
				t.Fatal(err)
			}
			updated, _, err := ix.Update(ws, []string{c.changed})
			if err != nil {
				t.Fatal(err)
			}
			fresh := New(root, t.TempDir(), Options{})
			walked := syncIndex(t, fresh, root)
			for how, g := range map[string]*graph.Graph{"an update": updated.Graph(), "a full walk": walked} {
				if got := node(g, "file:"+c.path) != nil; got != c.indexed {
					t.Errorf("after %s, file:%s in the graph is %v, want %v", how, c.path, got, c.indexed)
				}
			}
			syms, err := fresh.Symbols()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range syms.Nodes {
				if n.Name == "Secret" {
					t.Errorf("the outside file's symbol is in the graph: %s", n.ID)
				}
			}
			if !c.indexed {
				found := false
				for _, d := range fresh.Diagnostics() {
					found = found || strings.Contains(d.Message, "outside the workspace")
				}
				if !found {
					t.Errorf("no diagnostic says the link leads outside: %+v", fresh.Diagnostics())
				}
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
