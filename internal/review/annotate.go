package review

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/coverage"
	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/inputs"
	"github.com/corehq/core/internal/workspace"
)

// Annotate turns a change into the review: each file's owning project and
// role, the symbols its hunks touch and who uses them (none without
// syms), the coverage of its changed lines, the blast radius with a chain
// of reasons per node, and the reading order.
func Annotate(ctx context.Context, ws *workspace.Workspace, root string, ch diff.Change, syms Symbols) (Review, error) {
	owners := graph.NewOwners(ws)
	paths := make([]string, 0, len(ch.Files)*2)
	for _, f := range ch.Files {
		paths = append(paths, f.Path)
		if f.OldPath != "" {
			paths = append(paths, f.OldPath) // a rename changes both places
		}
	}
	set, why := affected.Explain(ws, paths)
	rev := Review{Base: ch.Base, Files: make([]ReviewFile, 0, len(ch.Files)), Affected: Affected{Projects: []Reached{}, Targets: []Reached{}}}
	for _, p := range set.Projects {
		rev.Affected.Projects = append(rev.Affected.Projects, Reached{ID: graph.ProjectID(p), Chain: why.Project(p)})
	}
	for _, t := range set.Targets {
		project, name, _ := strings.Cut(t, ":")
		rev.Affected.Targets = append(rev.Affected.Targets, Reached{ID: graph.TargetID(project, name), Chain: why.Target(t)})
	}

	reach := map[string][]SymbolReach{}
	if syms != nil {
		// Generated files are read last and their symbols are not the
		// change a person made: they get no reach.
		var authored []diff.File
		for _, f := range ch.Files {
			if role(ws, owners.Of(f.Path), f.Path) != RoleGenerated {
				authored = append(authored, f)
			}
		}
		r, err := syms.Reach(ctx, authored)
		if err != nil {
			return Review{}, err
		}
		reach = r
	}
	cov := newCoverageReader(ws, root)
	for _, f := range ch.Files {
		rf := ReviewFile{File: f, Symbols: reach[f.Path], Coverage: LineCoverage{Covered: []int{}, Uncovered: []int{}, Unknown: []int{}}}
		if rf.Symbols == nil {
			rf.Symbols = []SymbolReach{}
		}
		owner := owners.Of(f.Path)
		if owner != nil {
			rf.Project = owner.Name
		}
		rf.Role = role(ws, owner, f.Path)
		if f.Kind != diff.KindDeleted {
			cov.annotate(&rf)
		}
		rev.Files = append(rev.Files, rf)
	}
	byFile := why.ByFile()
	order(rev.Files, func(p string) int { return byFile[p] })
	return rev, nil
}

// order sorts files for reading: the widest reach first (the affected
// nodes whose shortest chain starts at the file, then how many files use
// the symbols it changes), each
// test right after the file it tests when that file changed too, and
// generated files last; ties by path.
func order(files []ReviewFile, radius func(path string) int) {
	score := make(map[string]int, len(files))
	index := make(map[string]int, len(files))
	for i, f := range files {
		n := radius(f.Path) * 1000
		for _, s := range f.Symbols {
			n += s.FilesTotal
		}
		score[f.Path] = n
		index[f.Path] = i
	}
	var lead, generated []ReviewFile
	tests := map[string][]ReviewFile{} // by the file they test
	for _, f := range files {
		switch {
		case f.Role == RoleGenerated:
			generated = append(generated, f)
		case testedBy(f.Path) != "" && hasPath(index, testedBy(f.Path)) && testedBy(f.Path) != f.Path:
			tests[testedBy(f.Path)] = append(tests[testedBy(f.Path)], f)
		default:
			lead = append(lead, f)
		}
	}
	sort.SliceStable(lead, func(i, j int) bool {
		a, b := lead[i], lead[j]
		if score[a.Path] != score[b.Path] {
			return score[a.Path] > score[b.Path]
		}
		return a.Path < b.Path
	})
	sort.Slice(generated, func(i, j int) bool { return generated[i].Path < generated[j].Path })
	out := files[:0:0]
	for _, f := range lead {
		out = append(out, f)
		ts := tests[f.Path]
		sort.Slice(ts, func(i, j int) bool { return ts[i].Path < ts[j].Path })
		out = append(out, ts...)
	}
	out = append(out, generated...)
	copy(files, out)
}

func hasPath(index map[string]int, p string) bool { _, ok := index[p]; return ok }

// coverageReader reads each declared coverage file once per review.
type coverageReader struct {
	ws    *workspace.Workspace
	root  string
	files map[string]coverageFile // by path relative to the root
}

type coverageFile struct {
	lines   coverage.Lines
	problem string
}

func newCoverageReader(ws *workspace.Workspace, root string) *coverageReader {
	return &coverageReader{ws: ws, root: root, files: map[string]coverageFile{}}
}

// annotate splits rf's changed lines by the coverage files of the targets
// that concern it: those of its project, and those whose inputs match it.
func (c *coverageReader) annotate(rf *ReviewFile) {
	var from, problems []string
	merged := coverage.Lines{}
	for _, p := range c.ws.Projects {
		rel, inside := under(p.Path, rf.Path)
		for _, t := range p.Targets {
			if t.Coverage == "" || (!inside && p.Name != rf.Project) {
				continue
			}
			if p.Name != rf.Project && !inputs.InputMatch(t, rel) {
				continue
			}
			file := path.Join(p.Path, t.Coverage)
			cf := c.read(file, p)
			from = append(from, file)
			if cf.problem != "" {
				problems = append(problems, cf.problem)
				continue
			}
			merged.Merge(coverage.Lines{rf.Path: cf.lines[rf.Path]})
		}
	}
	sort.Strings(from)
	rf.Coverage.From = strings.Join(from, ", ")
	rf.Coverage.Problem = strings.Join(problems, "; ")
	states := merged[rf.Path]
	for _, h := range rf.Hunks {
		for l := h.NewStart; l < h.NewStart+h.NewLines; l++ {
			ran, known := states[l]
			switch {
			case !known:
				rf.Coverage.Unknown = append(rf.Coverage.Unknown, l)
			case ran:
				rf.Coverage.Covered = append(rf.Coverage.Covered, l)
			default:
				rf.Coverage.Uncovered = append(rf.Coverage.Uncovered, l)
			}
		}
	}
}

func (c *coverageReader) read(file string, p *workspace.Project) coverageFile {
	if cf, ok := c.files[file]; ok {
		return cf
	}
	src := coverage.Source{Root: c.root, ProjectDir: p.Path}
	src.Module, _ = coverage.FindModule(c.root, p.Path)
	lines, err := coverage.ReadFile(filepath.Join(c.root, filepath.FromSlash(file)), src)
	var cf coverageFile
	switch {
	case errors.Is(err, fs.ErrNotExist):
		cf.problem = file + " does not exist yet: run the target that writes it"
	case err != nil:
		cf.problem = file + ": " + err.Error()
	default:
		cf.lines = lines
	}
	c.files[file] = cf
	return cf
}
