package index

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
	"github.com/corehq/core/internal/workspace"
)

// TestIncrementalAssemblyEqualsAFullOne applies random edits to the
// fixture's files, one batch at a time, and checks after each that the
// incrementally updated graph equals one assembled from scratch.
func TestIncrementalAssemblyEqualsAFullOne(t *testing.T) {
	ws, files := parsedFixture(t)
	a := newAssembly(ws, files)
	imports := []string{"example.com/fx/lib", "fmt", "os", "example.com/fx/app", "example.com/fx/lib/nope"}
	rng := rand.New(rand.NewPCG(1, 2))
	// A small threshold: both the pending changes and the new bases are
	// exercised.
	defer func(n int) { rebaseAt = n }(rebaseAt)
	rebaseAt = 12
	var late []laidOut
	for round := 0; round < 300; round++ {
		var changed []*parse.FileRecord
		next := make(map[string]*parse.FileRecord, len(files))
		for p, r := range files {
			next[p] = r
		}
		for k := 0; k < 1+rng.IntN(3); k++ {
			var paths []string
			for p := range next {
				paths = append(paths, p)
			}
			p := paths[rng.IntN(len(paths))]
			c := *next[p]
			switch c.Lang {
			case parse.LangGo:
				c.Imports = nil
				for i := 0; i < rng.IntN(3); i++ {
					c.Imports = append(c.Imports, parse.Import{Path: imports[rng.IntN(len(imports))]})
				}
				if rng.IntN(4) == 0 {
					c.Package = fmt.Sprintf("pkg%d", rng.IntN(3))
				}
			case parse.LangMarkdown:
				c.Title = fmt.Sprintf("T%d", rng.IntN(3))
				c.Links = []string{"../lib/", "../app/main.go", "nope.md"}[:rng.IntN(4)]
				c.Mentions = []string{"app:build", "lib:build"}[:rng.IntN(3)]
			case parse.LangTypeScript, parse.LangPython:
				c.Imports = []parse.Import{{Path: "./view"}, {Path: "react"}, {Path: ".helpers"}, {Path: "os"}}[:rng.IntN(5)]
			default:
				continue
			}
			c.Diag = []string{"", "syntax error"}[rng.IntN(2)]
			next[p] = &c
			changed = append(changed, &c)
		}
		v, ok := a.update(next, changed)
		if !ok {
			t.Fatalf("round %d: an edit of known files needed a rebuild", round)
		}
		files = next
		full := newAssembly(ws, files).graph
		if v.Nodes != len(full.Nodes) || v.Edges != len(full.Edges) {
			t.Fatalf("round %d: the version counts %d nodes and %d edges, a full assembly %d and %d", round, v.Nodes, v.Edges, len(full.Nodes), len(full.Edges))
		}
		want := full.Encode()
		if round%3 == 0 {
			// Most versions are laid out late, after later edits, as a
			// snapshot nobody read for a while would be.
			late = append(late, laidOut{round, v, want})
			continue
		}
		if got := v.Graph().Encode(); !bytes.Equal(got, want) {
			t.Fatalf("round %d: the incremental graph differs from a full assembly\n got: %s\nwant: %s", round, got, want)
		}
	}
	for _, l := range late {
		if got := l.v.Graph().Encode(); !bytes.Equal(got, l.want) {
			t.Fatalf("round %d, laid out after later edits: the graph differs from a full assembly\n got: %s\nwant: %s", l.round, got, l.want)
		}
	}
}

type laidOut struct {
	round int
	v     *Version
	want  []byte
}

// An edit that leaves the default graph as it was, such as reordering the
// imports of the only file importing an external package, makes no new
// version: no event, no re-fetch by every console.
func TestAnEditThatKeepsTheGraphKeepsTheVersion(t *testing.T) {
	ws, files := parsedFixture(t)
	a := newAssembly(ws, files)
	before := a.cur
	c := *files["app/main.go"]
	c.Imports = []parse.Import{c.Imports[1], c.Imports[0]} // fmt is imported by this file alone
	next := map[string]*parse.FileRecord{}
	for p, r := range files {
		next[p] = r
	}
	next[c.Path] = &c
	v, ok := a.update(next, []*parse.FileRecord{&c})
	if !ok {
		t.Fatal("an edit of a known file needed a rebuild")
	}
	if v != before {
		t.Fatalf("reordered imports made a new version (%d nodes, %d edges)", v.Nodes, v.Edges)
	}
}

// parsedFixture is the fixture workspace and the records of all its files,
// parsed but not assembled.
func parsedFixture(t *testing.T) (*workspace.Workspace, map[string]*parse.FileRecord) {
	t.Helper()
	root := newFixture(t)
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	found, _ := Discover(root, WalkOptions{DocGlobs: ws.Docs})
	files := map[string]*parse.FileRecord{}
	for _, r := range New(root, t.TempDir(), Options{}).parse(found) {
		files[r.Path] = r
	}
	return ws, files
}

// TestAnInferredEdgeAManifestNamesKeepsItsViaWhateverTheImports: the
// manifest's edge is there with its via whether or not the code imports
// the sibling, through incremental updates too.
func TestAnInferredEdgeAManifestNamesKeepsItsViaWhateverTheImports(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"targets.yaml":     "projects:\n  ui:\n    path: ui\n  web:\n    path: web\n",
		"ui/package.json":  `{"name": "@fx/ui", "main": "index.ts"}`,
		"ui/index.ts":      "export const x = 1;\n",
		"web/package.json": `{"name": "@fx/web", "dependencies": {"@fx/ui": "*"}}`,
		"web/main.ts":      "import { x } from '@fx/ui';\nexport const y = x;\n",
	})
	ws, err := workspace.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	found, _ := Discover(root, WalkOptions{DocGlobs: ws.Docs})
	files := map[string]*parse.FileRecord{}
	for _, r := range New(root, t.TempDir(), Options{}).parse(found) {
		files[r.Path] = r
	}
	want := graph.Edge{Source: "project:web", Target: "project:ui", Kind: graph.EdgeDependsInferred, Via: "web/package.json"}
	a := newAssembly(ws, files)
	if got := InferredDeps(a.graph); !slices.Equal(got, []graph.Edge{want}) {
		t.Fatalf("inferred %v, want %v", got, want)
	}
	for round, imports := range [][]parse.Import{nil, {{Path: "@fx/ui"}}, nil} {
		next := maps.Clone(files)
		c := *files["web/main.ts"]
		c.Imports = imports
		next["web/main.ts"] = &c
		v, ok := a.update(next, []*parse.FileRecord{&c})
		if !ok {
			t.Fatal("an edit of a known file needed a rebuild")
		}
		files = next
		if got := InferredDeps(v.Graph()); !slices.Equal(got, []graph.Edge{want}) {
			t.Errorf("round %d: inferred %v, want %v", round, got, want)
		}
		if got, full := v.Graph().Encode(), newAssembly(ws, files).graph.Encode(); !bytes.Equal(got, full) {
			t.Errorf("round %d: the incremental graph differs from a full assembly", round)
		}
	}
}
