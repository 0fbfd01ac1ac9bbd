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
