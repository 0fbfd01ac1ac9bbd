package backend

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/shard"
)

// CIReportPage is a CI run's report as an agent reads it (read_ci_report):
// the shards, what fails the run, and a page of its targets, the failed
// ones first.
type CIReportPage struct {
	Failed   bool                 `json:"failed" jsonschema:"whether the CI run fails: a target failed, or a problem below"`
	Problems []string             `json:"problems,omitempty" jsonschema:"what fails the run beside failed targets"`
	Shards   []shard.ShardSummary `json:"shards" jsonschema:"each shard's counts"`
	Twice    []string             `json:"ran_twice,omitempty" jsonschema:"targets whose command ran on more than one shard"`
	Targets  []CIResult           `json:"targets" jsonschema:"the targets, failed first, each with its shard and, when it failed, the end of its output"`
	Paging
}

// ReadCIReport gathers a CI run's report from dirs: directories inside
// the workspace where the shards' run journals were downloaded (what
// core ci report reads). A directory is an agent's argument: it must be
// a path inside the workspace, and stay inside it once its symbolic
// links are followed; below it, the walk follows none.
func (r *Runs) ReadCIReport(dirs []string, req PageRequest) (CIReportPage, error) {
	if len(dirs) == 0 {
		return CIReportPage{}, apierr.BadRequest("dirs: name at least one directory inside the workspace that holds the shards' run journals (where the CI workflow's artifacts were downloaded)")
	}
	root := r.ws.Root()
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return CIReportPage{}, err
	}
	abs := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if !fsx.Local(d) {
			return CIReportPage{}, apierr.BadRequest("dirs: %q is not a path inside the workspace: give it relative to the workspace root", d)
		}
		real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(d)))
		if err != nil {
			return CIReportPage{}, apierr.BadRequest("dirs: %q cannot be read: it does not exist, or a link in it is broken", d)
		}
		if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return CIReportPage{}, apierr.BadRequest("dirs: %q leads out of the workspace through a symbolic link", d)
		}
		abs = append(abs, real)
	}
	rep, err := GatherCIReport(abs, nil)
	if err != nil {
		return CIReportPage{}, apierr.BadRequest("%s", strings.ReplaceAll(err.Error(), realRoot+string(filepath.Separator), ""))
	}
	targets := slices.Clone(rep.Targets)
	slices.SortStableFunc(targets, func(a, b CIResult) int {
		switch {
		case !a.OK() && b.OK():
			return -1
		case a.OK() && !b.OK():
			return 1
		}
		return strings.Compare(a.Target, b.Target)
	})
	out := CIReportPage{Failed: rep.Failed, Problems: rep.Problems, Shards: rep.Shards, Twice: rep.Twice}
	for i := range out.Shards {
		// The source is a directory on this machine: relative to the
		// workspace, an absolute path says nothing an agent needs.
		if rel, err := filepath.Rel(realRoot, out.Shards[i].Source); err == nil && filepath.IsLocal(rel) {
			out.Shards[i].Source = filepath.ToSlash(rel)
		}
	}
	out.Targets, out.Paging, err = page(targets, question("read_ci_report", dirs), req, ciLimits, listBudget-encodedLen(out), "the failed targets come first; a later page lists the rest")
	return out, err
}
