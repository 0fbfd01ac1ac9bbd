// Package graph is the knowledge graph of a workspace: the nodes (projects,
// targets, spells, docs, and later files, packages and symbols) and the
// edges between them that the console draws, the query engine walks and
// GET /api/v1/graph serves.
//
// The JSON form is a contract: `core graph --json` and the HTTP route print
// the same bytes, so Encode is deterministic (sorted nodes and edges, fixed
// field order) and hand-written rather than left to reflection.
package graph

import (
	"path"
	"strings"

	"github.com/corehq/core/internal/workspace"
)

// Node kinds.
const (
	KindProject = "project"
	KindTarget  = "target"
	KindSpell   = "spell"
	KindDoc     = "doc"
	KindFile    = "file"
	KindPackage = "package"
	KindSymbol  = "symbol"
)

// Edge kinds. Dependency edges point from the dependent to what it depends
// on; ownership edges from the owner to what it owns.
const (
	EdgeOwns            = "owns"             // project -> target, project -> doc (later file, symbol)
	EdgeDepends         = "depends"          // target -> target
	EdgeDependsDeclared = "depends_declared" // project -> project, from targets.yaml
	EdgeDependsInferred = "depends_inferred" // project -> project, from imports or a manifest (Via names it)
	EdgeImports         = "imports"
	EdgeLinks           = "links"
	EdgeMentions        = "mentions"
	EdgeReferences      = "references"
	EdgeContains        = "contains" // package -> file
)

// Node is a vertex of the graph. Fields after Name are kind-specific.
type Node struct {
	ID          string   `json:"id"`
	Kind        string   `json:"kind"`
	Name        string   `json:"name"`
	Path        string   `json:"path,omitempty"`    // project dir, doc path, target's project dir
	Project     string   `json:"project,omitempty"` // owning project of targets and docs
	Command     []string `json:"command,omitempty"` // target and spell argv
	Inputs      []string `json:"inputs,omitempty"`
	Outputs     []string `json:"outputs,omitempty"`
	Drift       bool     `json:"drift,omitempty"`
	Description string   `json:"description,omitempty"`
	Title       string   `json:"title,omitempty"`       // doc: its first "# " heading
	Language    string   `json:"language,omitempty"`    // file: go, typescript, javascript, python
	SymbolKind  string   `json:"symbol_kind,omitempty"` // symbol: func, method, type, const, var, class, function
	Line        int      `json:"line,omitempty"`        // symbol: line of its declaration
	External    bool     `json:"external,omitempty"`    // package: not part of the workspace
	Diagnostic  string   `json:"diagnostic,omitempty"`  // file: why it did not (fully) parse
	State       string   `json:"state,omitempty"`       // target in the plan: idle, queued, running, succeeded, failed, cached
	// Holds is, on a project of the project skeleton (level=projects), how
	// many nodes of each kind the project owns in the knowledge graph: what
	// the explorer says of a project before it is expanded.
	Holds map[string]int `json:"holds,omitempty"`
}

// Edge is a directed, typed relation between two node ids.
type Edge struct {
	Source string `json:"source"`
	Target string `json:"target"`
	Kind   string `json:"kind"`
	// Via is, on a depends_inferred edge, the slash path from the root of
	// what names it: the manifest (a package.json, go.mod or pyproject.toml
	// entry), else the first importing file by path. One edge per
	// (source, target, kind): Via does not order.
	Via string `json:"via,omitempty"`
}

// Graph is a set of nodes and edges. Build, Targets and Projects return it
// sorted; call Sort after adding to it.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// ProjectID returns the node id of a project, "project:<name>".
func ProjectID(name string) string { return "project:" + name }

// TargetID returns the node id of a target, "target:<project>:<target>".
func TargetID(project, target string) string { return "target:" + project + ":" + target }

// SpellID returns the node id of a spell, "spell:<name>".
func SpellID(name string) string { return "spell:" + name }

// DocID returns the node id of a doc, "doc:<slash path from the root>".
func DocID(path string) string { return "doc:" + path }

// Declared returns the part of the knowledge graph that targets.yaml
// declares: project, target and spell nodes, declared project dependencies,
// target dependencies and project -> target ownership. The index adds
// docs, files, packages and their edges (internal/index).
func Declared(ws *workspace.Workspace) *Graph {
	g := &Graph{}
	addProjects(g, ws)
	addTargets(g, ws, true)
	for _, s := range ws.Spells {
		g.Nodes = append(g.Nodes, Node{
			ID: SpellID(s.Name), Kind: KindSpell, Name: s.Name,
			Command: s.Run, Description: s.Description,
		})
	}
	g.Sort()
	return g
}

// Targets returns the target graph (flavor=targets): target nodes and their
// dependency edges only.
func Targets(ws *workspace.Workspace) *Graph {
	g := &Graph{}
	addTargets(g, ws, false)
	g.Sort()
	return g
}

// Projects returns the project skeleton (level=projects): project nodes,
// their declared dependency edges, and the inferred ones given (those
// between projects of ws; others are dropped). WithHolds adds what each
// project owns.
func Projects(ws *workspace.Workspace, inferred ...Edge) *Graph {
	g := &Graph{}
	addProjects(g, ws)
	known := map[string]bool{}
	for _, p := range ws.Projects {
		known[ProjectID(p.Name)] = true
	}
	for _, e := range inferred {
		if e.Kind == EdgeDependsInferred && known[e.Source] && known[e.Target] {
			g.Edges = append(g.Edges, e)
		}
	}
	g.Sort()
	return g
}

func addProjects(g *Graph, ws *workspace.Workspace) {
	for _, p := range ws.Projects {
		g.Nodes = append(g.Nodes, Node{ID: ProjectID(p.Name), Kind: KindProject, Name: p.Name, Path: p.Path})
		for _, d := range p.Deps {
			g.Edges = append(g.Edges, Edge{Source: ProjectID(p.Name), Target: ProjectID(d), Kind: EdgeDependsDeclared})
		}
	}
}

func addTargets(g *Graph, ws *workspace.Workspace, owns bool) {
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			id := TargetID(p.Name, t.Name)
			g.Nodes = append(g.Nodes, Node{
				ID: id, Kind: KindTarget, Name: t.Name, Path: p.Path, Project: p.Name,
				Command: t.Run, Inputs: t.Inputs, Outputs: t.Outputs, Drift: t.Drift,
			})
			if owns {
				g.Edges = append(g.Edges, Edge{Source: ProjectID(p.Name), Target: id, Kind: EdgeOwns})
			}
			for _, d := range t.Deps {
				project, target, _ := strings.Cut(d, ":")
				g.Edges = append(g.Edges, Edge{Source: id, Target: TargetID(project, target), Kind: EdgeDepends})
			}
		}
	}
}

// Owners answers which project owns a path in time proportional to the
// path's depth, not to the number of projects: the index asks it for every
// file of the workspace on every pass.
type Owners struct {
	byDir map[string]*workspace.Project
}

// NewOwners indexes the projects of ws by directory.
func NewOwners(ws *workspace.Workspace) *Owners {
	o := &Owners{byDir: make(map[string]*workspace.Project, len(ws.Projects))}
	for _, p := range ws.Projects {
		o.byDir[p.Path] = p
	}
	return o
}

// Of returns the project whose directory holds the slash path p (the
// deepest such directory), or nil when p lies outside every project. It
// answers what OwnerOf answers.
func (o *Owners) Of(p string) *workspace.Project {
	return o.OfDir(path.Dir(p))
}

// OfDir returns the project owning the directory dir itself: the project
// rooted there, or the one whose directory holds it.
func (o *Owners) OfDir(dir string) *workspace.Project {
	for d := dir; ; d = path.Dir(d) {
		if p, ok := o.byDir[d]; ok {
			return p
		}
		if d == "." || d == "/" || d == "" {
			return nil
		}
	}
}

// OwnerOf returns the project whose directory is the longest prefix of the
// slash path p, or nil when p lies outside every project.
func OwnerOf(ws *workspace.Workspace, p string) *workspace.Project {
	var best *workspace.Project
	bestLen := -1
	for _, pr := range ws.Projects {
		var n int
		switch {
		case pr.Path == ".":
			n = 0
		case strings.HasPrefix(p, pr.Path+"/"):
			n = len(pr.Path)
		default:
			continue
		}
		if n > bestLen {
			best, bestLen = pr, n
		}
	}
	return best
}

// Holds counts, for each project of g, the nodes it owns by kind (its
// owns edges): Node.Holds of the project skeleton.
func Holds(g *Graph) map[string]map[string]int {
	out := map[string]map[string]int{}
	if g == nil {
		return out
	}
	kind := make(map[string]string, len(g.Nodes))
	for i := range g.Nodes {
		kind[g.Nodes[i].ID] = g.Nodes[i].Kind
	}
	for _, e := range g.Edges {
		if e.Kind != EdgeOwns || !strings.HasPrefix(e.Source, "project:") {
			continue
		}
		name := strings.TrimPrefix(e.Source, "project:")
		m := out[name]
		if m == nil {
			m = map[string]int{}
			out[name] = m
		}
		m[kind[e.Target]]++
	}
	return out
}

// WithHolds sets Holds on the project nodes of g (the skeleton) from
// holds, as Holds counted it; a project that owns nothing gets none.
func (g *Graph) WithHolds(holds map[string]map[string]int) *Graph {
	for i := range g.Nodes {
		if g.Nodes[i].Kind == KindProject {
			g.Nodes[i].Holds = holds[g.Nodes[i].Name]
		}
	}
	return g
}
