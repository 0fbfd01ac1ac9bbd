package backend

import (
	"context"
	"fmt"
	"slices"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/reviewstate"
)

// The modes of read_diff.
const (
	DiffSummary = "summary"
	DiffFull    = "full"
)

// DiffModes are read_diff's modes.
var DiffModes = []string{DiffSummary, DiffFull}

// DiffRequest asks for a view of the change.
type DiffRequest struct {
	Base  string
	Mode  string   // summary (default) or full
	Paths []string // files, directories or globs to keep
	Page  PageRequest
}

// DiffView is the change as an agent reads it: in summary, per file its
// kind, role, project, counts, changed symbols and coverage counts; in
// full, the files as GET /api/v1/diff has them (hunks, each changed
// symbol's reach, changed lines by coverage). Files come in reading
// order, a page at a time, with what the whole change affects and the
// open comments on the files shown.
type DiffView struct {
	Base     diff.Base       `json:"base"`
	Mode     string          `json:"mode" jsonschema:"summary or full"`
	Paths    []string        `json:"paths,omitempty" jsonschema:"the paths the change was narrowed to"`
	Totals   DiffTotals      `json:"totals" jsonschema:"the files, lines and comments of the change (narrowed to paths), every page alike"`
	Summary  []FileSummary   `json:"summary,omitempty" jsonschema:"mode summary: a page of the files, in reading order"`
	Files    []DiffFile      `json:"files,omitempty" jsonschema:"mode full: a page of the files, in reading order"`
	Affected DiffAffected    `json:"affected" jsonschema:"what the whole change affects (not narrowed to paths)"`
	Comments []DiffComment   `json:"comments" jsonschema:"the review session's unresolved comments on the files of this page"`
	Viewed   []string        `json:"viewed,omitempty" jsonschema:"files of this page the person marked viewed at their current content"`
	Session  DiffSessionInfo `json:"session"`
	Paging
}

// DiffTotals count the change.
type DiffTotals struct {
	Files   int            `json:"files"`
	Added   int            `json:"added"`
	Deleted int            `json:"deleted"`
	ByRole  map[string]int `json:"by_role" jsonschema:"files per role: source, test, doc, config, generated, unclaimed"`
}

// FileSummary is one changed file in a few words.
type FileSummary struct {
	Path         string          `json:"path"`
	OldPath      string          `json:"old_path,omitempty"`
	Kind         string          `json:"kind" jsonschema:"added, modified, deleted, renamed, mode, submodule, typechange"`
	Role         string          `json:"role"`
	Project      string          `json:"project,omitempty"`
	Added        int             `json:"added"`
	Deleted      int             `json:"deleted"`
	Binary       bool            `json:"binary,omitempty"`
	Untracked    bool            `json:"untracked,omitempty"`
	Truncated    bool            `json:"truncated,omitempty"`
	Symbols      []SymbolSummary `json:"symbols" jsonschema:"the declarations its hunks touch (at most 10)"`
	SymbolsTotal int             `json:"symbols_total"`
	Coverage     CoverageCounts  `json:"coverage"`
}

// SymbolSummary is a changed symbol and how far it reaches.
type SymbolSummary struct {
	ID    string `json:"id" jsonschema:"symbol_context takes it"`
	Name  string `json:"name"`
	Files int    `json:"files" jsonschema:"files that reference it"`
}

// CoverageCounts count a file's changed lines by coverage.
type CoverageCounts struct {
	Covered   int    `json:"covered"`
	Uncovered int    `json:"uncovered"`
	Unknown   int    `json:"unknown"`
	Problem   string `json:"problem,omitempty"`
}

// DiffFile is a file of the full view: what GET /api/v1/diff says of it,
// its hunks and coverage lines bounded.
type DiffFile struct {
	diff.ReviewFile
	HunksTotal int `json:"hunks_total" jsonschema:"hunks of the file; at most 100 are listed"`
}

// DiffAffected is what the whole change affects: ids, each with its
// reason chain in full mode.
type DiffAffected struct {
	Projects      []Reached `json:"projects"`
	ProjectsTotal int       `json:"projects_total"`
	Targets       []Reached `json:"targets"`
	TargetsTotal  int       `json:"targets_total"`
}

// Reached is an affected node, with the chain of reasons back to a
// changed file in full mode.
type Reached struct {
	ID    string   `json:"id"`
	Chain []string `json:"chain,omitempty" jsonschema:"mode full: why, from the node back to a changed file"`
}

// DiffComment is an unresolved comment of the review session.
type DiffComment struct {
	ID       string             `json:"id" jsonschema:"review's resolve and reopen take it"`
	Path     string             `json:"path"`
	Line     int                `json:"line"`
	Body     string             `json:"body" jsonschema:"at most 1 KB of it"`
	Author   reviewstate.Author `json:"author"`
	Outdated bool               `json:"outdated,omitempty"`
}

// DiffSessionInfo counts the review session of the branch.
type DiffSessionInfo struct {
	Branch     string `json:"branch"`
	Version    int    `json:"version"`
	Unresolved int    `json:"unresolved" jsonschema:"unresolved comments on the whole change"`
	Resolved   int    `json:"resolved"`
	Viewed     int    `json:"viewed" jsonschema:"files marked viewed at their current content"`
	Notice     string `json:"notice,omitempty"`
}

// Bounds of the view.
var (
	summaryLimits = listLimits{def: 100, max: 500}
	fullLimits    = listLimits{def: 20, max: 200}
)

const (
	maxHunks         = 100
	maxCoverageLines = 200
	maxSymbolsShown  = 10
	maxAffectedShown = 100
	maxComments      = 50
	maxCommentBody   = 1 << 10
)

// View is the change against base as an agent reads it (DiffView).
func (r *Review) View(ctx context.Context, req DiffRequest) (DiffView, error) {
	switch req.Mode {
	case "":
		req.Mode = DiffSummary
	case DiffSummary, DiffFull:
	default:
		return DiffView{}, apierr.BadRequest("mode %s is not one of summary, full", quote.Short(req.Mode))
	}
	only, err := diff.ParsePaths(req.Paths)
	if err != nil {
		return DiffView{}, apierr.BadRequest("paths: %v", err)
	}
	p, _, err := r.Page(ctx, req.Base)
	if err != nil {
		return DiffView{}, err
	}
	v := DiffView{Base: p.Base, Mode: req.Mode, Paths: only.Paths(), Totals: DiffTotals{ByRole: map[string]int{}}}
	var files []diff.ReviewFile
	for _, f := range p.Files {
		if only.MatchFile(f.File) {
			files = append(files, f)
			v.Totals.Files++
			v.Totals.Added += f.Added
			v.Totals.Deleted += f.Deleted
			v.Totals.ByRole[f.Role]++
		}
	}
	q := question("read_diff", req.Base, req.Mode, only.Paths())
	narrow := "paths narrows the change to files, directories or globs"
	var shown []string
	budget := listBudget - 16<<10 // the affected ids and the comments take the rest
	if req.Mode == DiffSummary {
		sums := make([]FileSummary, len(files))
		for i, f := range files {
			sums[i] = fileSummary(f)
		}
		if v.Summary, v.Paging, err = page(sums, q, req.Page, summaryLimits, budget, narrow); err != nil {
			return DiffView{}, err
		}
		for _, f := range v.Summary {
			shown = append(shown, f.Path)
		}
		if v.Summary == nil {
			v.Summary = []FileSummary{}
		}
	} else {
		full := make([]DiffFile, len(files))
		for i, f := range files {
			full[i] = bounded(f)
		}
		if v.Files, v.Paging, err = page(full, q, req.Page, fullLimits, budget, narrow+"; mode summary lists more files a page"); err != nil {
			return DiffView{}, err
		}
		for _, f := range v.Files {
			shown = append(shown, f.Path)
		}
		if v.Files == nil {
			v.Files = []DiffFile{}
		}
	}
	v.Affected = affectedOf(p.Affected, req.Mode == DiffFull)
	v.Comments, v.Viewed, v.Session = sessionOf(p.Session, shown)
	if only != nil && v.Totals.Files == 0 {
		v.Note = fmt.Sprintf("no changed file matches paths (the change has %d files): leave paths out to see them", len(p.Files))
	}
	return v, nil
}

func fileSummary(f diff.ReviewFile) FileSummary {
	s := FileSummary{Path: f.Path, OldPath: f.OldPath, Kind: f.Kind, Role: f.Role, Project: f.Project, Added: f.Added, Deleted: f.Deleted,
		Binary: f.Binary, Untracked: f.Untracked, Truncated: f.Truncated, Symbols: []SymbolSummary{}, SymbolsTotal: len(f.Symbols),
		Coverage: CoverageCounts{len(f.Coverage.Covered), len(f.Coverage.Uncovered), len(f.Coverage.Unknown), f.Coverage.Problem}}
	for _, sym := range f.Symbols[:min(len(f.Symbols), maxSymbolsShown)] {
		s.Symbols = append(s.Symbols, SymbolSummary{ID: sym.ID, Name: sym.Name, Files: sym.FilesTotal})
	}
	return s
}

// bounded is a file of the full view, its long lists cut.
func bounded(f diff.ReviewFile) DiffFile {
	d := DiffFile{ReviewFile: f, HunksTotal: len(f.Hunks)}
	d.Hunks = f.Hunks[:min(len(f.Hunks), maxHunks)]
	c := &d.Coverage
	c.Covered = c.Covered[:min(len(c.Covered), maxCoverageLines)]
	c.Uncovered = c.Uncovered[:min(len(c.Uncovered), maxCoverageLines)]
	c.Unknown = c.Unknown[:min(len(c.Unknown), maxCoverageLines)]
	return d
}

// affectedOf is the blast radius, bounded; chains only when full.
func affectedOf(a diff.Affected, chains bool) DiffAffected {
	cut := func(rs []diff.Reached) []Reached {
		out := []Reached{}
		for _, r := range rs[:min(len(rs), maxAffectedShown)] {
			a := Reached{ID: r.ID}
			if chains {
				a.Chain = r.Chain
			}
			out = append(out, a)
		}
		return out
	}
	return DiffAffected{Projects: cut(a.Projects), ProjectsTotal: len(a.Projects), Targets: cut(a.Targets), TargetsTotal: len(a.Targets)}
}

// sessionOf is the part of the session that concerns the files shown.
func sessionOf(s reviewstate.Session, shown []string) ([]DiffComment, []string, DiffSessionInfo) {
	info := DiffSessionInfo{Branch: s.Branch, Version: s.Version, Viewed: len(s.Viewed), Notice: s.Notice}
	comments := []DiffComment{}
	for _, c := range s.Comments {
		if c.Resolved {
			info.Resolved++
			continue
		}
		info.Unresolved++
		if slices.Contains(shown, c.Path) && len(comments) < maxComments {
			body := c.Body
			if len(body) > maxCommentBody {
				body = cutText(body, maxCommentBody)
			}
			comments = append(comments, DiffComment{ID: c.ID, Path: c.Path, Line: c.Line, Body: body, Author: c.Author, Outdated: c.Outdated})
		}
	}
	var viewed []string
	for _, m := range s.Viewed {
		if slices.Contains(shown, m.Path) {
			viewed = append(viewed, m.Path)
		}
	}
	return comments, viewed, info
}
