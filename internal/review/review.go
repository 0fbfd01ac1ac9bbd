// Package review is the person's review of their change, the page of
// GET /api/v1/diff and `core diff`: the change package diff reads,
// annotated (each file's role, the symbols its hunks touch and who uses
// them, the coverage of its changed lines, the blast radius with a chain
// of reasons, a reading order), a symbol's context, and the branch's
// review session (kept by package reviewstate) as the change now reads.
package review

import "github.com/corehq/core/internal/diff"

// The roles of a changed file.
const (
	RoleSource    = "source"
	RoleTest      = "test"
	RoleDoc       = "doc"
	RoleConfig    = "config"    // targets.yaml, go.mod, package.json, ...
	RoleGenerated = "generated" // matches a declared target's outputs
	RoleUnclaimed = "unclaimed" // in no project
)

// Coverage states of a changed line.
const (
	Covered   = "covered"
	Uncovered = "uncovered"
	Unknown   = "unknown"
)

// Review is the annotated change, the body of GET /api/v1/diff: every file
// with its role, reach and coverage, in reading order, and what the change
// affects, each with the chain of reasons that makes it affected.
type Review struct {
	Base     diff.Base    `json:"base"`
	Files    []ReviewFile `json:"files"` // in reading order
	Affected Affected     `json:"affected"`
}

// ReviewFile is one changed file with its annotations.
type ReviewFile struct {
	diff.File
	Project string `json:"project,omitempty"` // the owning project, "" when unclaimed
	Role    string `json:"role"`
	// Symbols are the declarations the hunks touch, each with who
	// references it.
	Symbols []SymbolReach `json:"symbols"`
	// Coverage is per changed (added or modified) line of the new file.
	Coverage LineCoverage `json:"coverage"`
}

// SymbolReach is a changed symbol and what uses it.
type SymbolReach struct {
	ID      string `json:"id"` // the graph node, symbol:<path>#<name>
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Line    int    `json:"line"`     // where its declaration starts in the new file
	EndLine int    `json:"end_line"` // where it ends
	// Files reference it (sorted, at most MaxReferrers of FilesTotal).
	Files      []string `json:"files"`
	FilesTotal int      `json:"files_total"`
	Projects   []string `json:"projects"` // the projects of all of them, sorted
}

// LineCoverage splits the changed lines of a file by coverage state; From
// names the coverage file read ("" when none is declared: then every line
// is unknown).
type LineCoverage struct {
	From string `json:"from,omitempty"`
	// Problem says why a declared coverage file could not be read (not
	// produced yet, not a format core reads); its lines are then unknown.
	Problem   string `json:"problem,omitempty"`
	Covered   []int  `json:"covered"`
	Uncovered []int  `json:"uncovered"`
	Unknown   []int  `json:"unknown"`
}

// Affected is the blast radius of the change.
type Affected struct {
	Projects []Reached `json:"projects"`
	Targets  []Reached `json:"targets"`
}

// Reached is one affected project or target and why: Chain starts at the
// node and ends at the changed file, e.g. ["api:build", "depends on
// mathx:build", "input libs/mathx/mathx.go changed"].
type Reached struct {
	ID    string   `json:"id"` // the graph node id
	Chain []string `json:"chain"`
}
