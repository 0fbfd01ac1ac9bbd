package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/corehq/core/internal/graph"
)

// TestAProjectsLineSaysWhereEachDependencyComesFrom: declared, the
// manifest that names it, or imports, once per project depended on.
func TestAProjectsLineSaysWhereEachDependencyComesFrom(t *testing.T) {
	g := &graph.Graph{
		Nodes: []graph.Node{
			{ID: "project:app", Kind: graph.KindProject, Name: "app", Path: "apps/web"},
			{ID: "project:ui", Kind: graph.KindProject, Name: "ui", Path: "packages/ui"},
			{ID: "project:util", Kind: graph.KindProject, Name: "util", Path: "libs/util"},
		},
		Edges: []graph.Edge{
			{Source: "project:app", Target: "project:ui", Kind: graph.EdgeDependsInferred, Via: "apps/web/package.json"},
			{Source: "project:app", Target: "project:util", Kind: graph.EdgeDependsDeclared},
			{Source: "project:app", Target: "project:util", Kind: graph.EdgeDependsInferred},
		},
	}
	var b bytes.Buffer
	printKnowledge(&b, g)
	if want := "  depends on: ui (apps/web/package.json), util (declared, imports)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("core graph says\n%s\nwant a line %q", b.String(), want)
	}
	b.Reset()
	printQuery(&b, g)
	for _, want := range []string{"app depends on (apps/web/package.json) ui", "app imports from util", "app depends on (declared) util"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("core query says\n%s\nwant %q", b.String(), want)
		}
	}
}

func TestAQueryThatFindsNothingNamesTheSymbolItsWordsName(t *testing.T) {
	symbols := map[string]graph.Node{
		"Slugify": {ID: "symbol:libs/util/slug.go#Slugify", Kind: graph.KindSymbol, Name: "Slugify", Path: "libs/util/slug.go", Line: 11},
		"render":  {ID: "symbol:web/view.ts#render", Kind: graph.KindSymbol, Name: "render", Path: "web/view.ts", Line: 1},
	}
	find := func(terms string) (*graph.Graph, error) {
		g := &graph.Graph{}
		for _, t := range strings.Fields(terms) {
			if n, ok := symbols[strings.TrimPrefix(t, "symbol:")]; ok {
				g.Nodes = append(g.Nodes, n)
			}
		}
		return g, nil
	}
	for _, c := range []struct {
		args []string
		want string // "" for no hint
	}{
		{[]string{"Slugify"}, "symbol:Slugify (libs/util/slug.go:11): core query symbol:Slugify"},
		{[]string{"slugify"}, "core query symbol:Slugify"},
		{[]string{"Render", "depth:2"}, "symbol:render (web/view.ts:1)"},
		{[]string{"nothing"}, ""},
		{[]string{"symbol:Slugify"}, ""}, // already a symbol term
		{[]string{"a/b"}, ""},            // not a name
	} {
		got := symbolHint(c.args, find)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%q: hint %q, want one with %q", c.args, got, c.want)
		}
	}
}
