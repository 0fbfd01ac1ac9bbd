// Package affected answers "what does this change touch?": the files
// changed on a branch (against the merge-base with a base ref) plus the
// working tree, the projects that own them, the targets whose cache keys
// they are in, and everything that depends on those, transitively.
//
// A target is affected exactly when a changed file is something its cache
// key covers: the inputs package says what that is, for the runner and for
// this package alike (own inputs, // inputs, global inputs, the inputs of
// the projects its project depends on), and a target that depends on an
// affected target is affected. So `core affected` lists the targets whose
// keys the change moved, no more and no fewer.
//
// Projects: a changed file affects the project that owns it (the deepest
// project directory holding it), the project of an affected target is
// affected, and a project that depends on an affected project (declared,
// by a manifest or by an import) is affected, transitively.
//
// Deleted files count as changed: they still name a path, and a target
// whose input disappeared must run again.
package affected

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/corehq/core/internal/gitx"
	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/inputs"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/workspace"
)

// Set is what a change affects. Lists are sorted and never nil.
type Set struct {
	Projects []string `json:"projects"`
	Targets  []string `json:"targets"` // "project:target"
	Files    []string `json:"files"`   // slash paths relative to the workspace root
}

// Empty reports whether nothing is affected.
func (s Set) Empty() bool { return len(s.Projects) == 0 && len(s.Targets) == 0 }

// NodeIDs returns the graph node ids of the set: "project:<name>" and
// "target:<project>:<target>", sorted.
func (s Set) NodeIDs() []string {
	ids := make([]string, 0, len(s.Projects)+len(s.Targets))
	for _, p := range s.Projects {
		ids = append(ids, graph.ProjectID(p))
	}
	for _, t := range s.Targets {
		project, name, _ := strings.Cut(t, ":")
		ids = append(ids, graph.TargetID(project, name))
	}
	sort.Strings(ids)
	return ids
}

// Compute maps changed files (slash paths relative to the workspace root)
// to the affected projects and targets; see the package comment.
func Compute(ws *workspace.Workspace, changed []string) Set {
	set, _ := Explain(ws, changed)
	return set
}

// Reasons says why each node of a Set is affected: the first (and so
// shortest) path the walk found from a changed file to it.
type Reasons struct {
	why map[string]step // by "p:<project>" or "t:<target id>"
}

// step is one link of a chain: the node came from parent ("" for a
// changed file) because of reason.
type step struct {
	parent string
	reason string
	file   string // the changed file a chain starts from (seeds only)
}

// Project is the chain that makes project name affected, from the project
// to the changed file: the project, then one reason per link, each naming
// the next node, e.g. ["api", "depends on project mathx", "owns
// libs/mathx/mathx.go, which changed"]; nil when it is not affected.
func (r Reasons) Project(name string) []string { return r.chain("p:" + name) }

// Target is the chain of target id ("project:target"), e.g. ["api:build",
// "depends on mathx:build", "input libs/mathx/mathx.go changed"]; nil
// when it is not affected.
func (r Reasons) Target(id string) []string { return r.chain("t:" + id) }

// ByFile counts, per changed file, the affected projects and targets whose
// chain starts from it: what each file reaches, with every node counted
// once (for the file its shortest chain names).
func (r Reasons) ByFile() map[string]int {
	out := map[string]int{}
	for key, st := range r.why {
		if key[0] == 'p' || key[0] == 't' {
			out[st.file]++
		}
	}
	return out
}

func (r Reasons) chain(key string) []string {
	if _, ok := r.why[key]; !ok {
		return nil
	}
	out := []string{key[2:]}
	for range len(r.why) { // a chain never repeats a node
		st := r.why[key]
		out = append(out, st.reason)
		if st.parent == "" {
			return out
		}
		key = st.parent
	}
	return out
}

// Explain is Compute with the reasons: one walk gives both, so what `core
// affected` lists and what the review explains never differ.
//
// The walk's nodes are "p:<project>" and "t:<target id>", which the Set
// lists, and two it does not: "i:<project>", the project's inputs (its
// part) changed, and "d:<project>", the inputs of a project it depends on
// changed.
func Explain(ws *workspace.Workspace, changed []string) (Set, Reasons) {
	files := uniqueSorted(changed)
	rule := inputs.New(ws, ws.Root, ignore.New(ws.Root, ""))
	why := map[string]step{}
	var queue []string // first in first out
	reach := func(key, parent, reason string) {
		if _, seen := why[key]; !seen {
			why[key] = step{parent: parent, reason: reason, file: why[parent].file}
			queue = append(queue, key)
		}
	}
	seed := func(key, file, reason string) {
		if _, seen := why[key]; !seen {
			why[key] = step{reason: reason, file: file}
			queue = append(queue, key)
		}
	}
	owners := graph.NewOwners(ws)
	for _, f := range files {
		ignored := rule.Ignored(f)
		global := rule.GlobalInput(f, ignored)
		for _, p := range ws.Projects {
			for _, t := range p.Targets {
				switch {
				case global:
					seed("t:"+t.ID(), f, "global input "+f+" changed")
				case rule.RootInput(t, f, ignored):
					seed("t:"+t.ID(), f, "input //"+f+" changed")
				case rule.Enclosing(t, p, f):
					seed("t:"+t.ID(), f, f+", above project "+p.Name+", changed")
				case rule.OwnInput(t, p, f, ignored):
					seed("t:"+t.ID(), f, "input "+f+" changed")
				}
			}
		}
		if q, ok := rule.InPart(f, ignored); ok {
			seed("i:"+q.Name, f, f+", an input of project "+q.Name+", changed")
		}
		for _, q := range ws.Projects {
			if rule.EnclosingPart(q, f) {
				seed("i:"+q.Name, f, f+", above project "+q.Name+", changed")
			}
		}
	}
	for _, f := range files {
		if owner := owners.Of(f); owner != nil {
			seed("p:"+owner.Name, f, "owns "+f+", which changed")
		}
	}

	// Dependents, transitively, breadth first.
	targetUsers := map[string][]string{}
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			for _, d := range t.Deps {
				targetUsers[d] = append(targetUsers[d], t.ID())
			}
		}
	}
	for len(queue) > 0 {
		item := queue[0]
		queue = queue[1:]
		kind, id := item[:1], item[2:]
		switch kind {
		case "t":
			project, _, _ := strings.Cut(id, ":")
			reach("p:"+project, item, "its target "+id+" is affected")
			for _, u := range targetUsers[id] {
				reach("t:"+u, item, "depends on "+id)
			}
		case "p":
			for _, e := range rule.Users(id) {
				reach("p:"+e.From, item, "depends on project "+id)
			}
		case "i", "d":
			if kind == "d" {
				for _, t := range ws.Project(id).Targets {
					if t.ReadsDependencies() {
						reach("t:"+t.ID(), item, "reads the inputs of the projects "+id+" depends on")
					}
				}
			}
			for _, e := range rule.Users(id) {
				reach("d:"+e.From, item, e.Reason())
			}
		}
	}
	projects := map[string]bool{}
	targets := map[string]bool{}
	for key := range why {
		switch key[0] {
		case 'p':
			projects[key[2:]] = true
		case 't':
			targets[key[2:]] = true
		}
	}
	return Set{Projects: keys(projects), Targets: keys(targets), Files: files}, Reasons{why: why}
}

// keys is m's keys, sorted, and never nil (JSON shows []).
func keys(m map[string]bool) []string {
	out := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(out)
	return out
}

func uniqueSorted(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, s := range in {
		s = strings.TrimPrefix(s, "./")
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// ErrNoDefaultBranch is matched (errors.Is) by Changed's error when base is
// "" and the repository has no origin/HEAD, main or master.
var ErrNoDefaultBranch = errors.New("no default branch")

// Changed returns the files (slash paths relative to root) changed between
// merge-base(base, HEAD) and HEAD, plus staged, unstaged and untracked (not
// ignored) files, sorted. base "" means the default branch: origin/HEAD's
// target, else main, else master. root may be a directory inside the
// repository: only files under it are returned, relative to it.
func Changed(ctx context.Context, root, base string) ([]string, error) {
	if _, err := git(ctx, root, "rev-parse", "--git-dir"); err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository (core affected compares git history): %w", root, err)
	}
	if base == "" {
		b, err := DefaultBase(ctx, root)
		if err != nil {
			return nil, err
		}
		base = b
	}
	if _, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}"); err != nil {
		return nil, fmt.Errorf("base %s is not a commit in this repository: pass --base with a branch, tag or commit that exists (git fetch it first if it is remote)", quote.Short(base))
	}
	if _, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return nil, fmt.Errorf("HEAD has no commit yet: commit once, then compare against %s", base)
	}
	mb, err := git(ctx, root, "merge-base", "--end-of-options", base, "HEAD")
	if err != nil {
		return nil, fmt.Errorf("%s and HEAD share no history: %w", base, err)
	}
	mergeBase := strings.TrimSpace(string(mb))
	var files []string
	for _, args := range [][]string{
		{"diff", "--name-only", "-z", "--no-renames", "--relative", mergeBase, "HEAD", "--"}, // committed on the branch
		{"diff", "--name-only", "-z", "--no-renames", "--relative", "--cached", "--"},        // staged
		{"diff", "--name-only", "-z", "--no-renames", "--relative", "--"},                    // unstaged
		{"ls-files", "-z", "--others", "--exclude-standard", "--"},                           // untracked
	} {
		out, err := git(ctx, root, args...)
		if err != nil {
			return nil, err
		}
		for _, f := range bytes.Split(out, []byte{0}) {
			if len(f) > 0 {
				files = append(files, string(f))
			}
		}
	}
	return uniqueSorted(files), nil
}

// DefaultBase returns the default branch to compare against: the target of
// origin/HEAD (e.g. "origin/main"), else "main", else "master".
func DefaultBase(ctx context.Context, root string) (string, error) {
	if out, err := git(ctx, root, "symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"); err == nil {
		if ref := strings.TrimSpace(string(out)); ref != "" {
			return strings.TrimPrefix(ref, "refs/remotes/"), nil
		}
	}
	for _, b := range []string{"main", "master"} {
		if _, err := git(ctx, root, "rev-parse", "--verify", "--quiet", "refs/heads/"+b+"^{commit}"); err == nil {
			return b, nil
		}
	}
	return "", fmt.Errorf("%w: origin/HEAD is not set and there is no main or master branch: pass --base REF (a branch, tag or commit to compare against), or run git remote set-head origin --auto", ErrNoDefaultBranch)
}

// git runs git -C root args and returns its stdout; an error names the
// command and carries git's message.
func git(ctx context.Context, root string, args ...string) ([]byte, error) {
	out, err := gitx.Output(ctx, root, args...)
	if errors.Is(err, gitx.ErrNotInstalled) {
		return nil, fmt.Errorf("%w to use core affected", err)
	}
	return []byte(out), err
}

// Published is the last affected set the CLI handed to the server (`core
// affected`, `core run --affected`): the status snapshot reports it as
// pool.affected, and the explorer paints it. The zero value holds none.
type Published struct {
	mu    sync.Mutex
	ids   []string
	base  string
	valid bool
}

// Set replaces the published set with node ids computed against base.
func (p *Published) Set(ids []string, base string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ids = slices.Sorted(slices.Values(ids))
	p.base, p.valid = base, true
}

// Get returns the published set and whether one was ever published.
func (p *Published) Get() (ids []string, base string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.ids), p.base, p.valid
}
