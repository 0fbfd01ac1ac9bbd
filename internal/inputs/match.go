// Package inputs is core's one rule for what a target reads: the files
// whose content is in its cache key, and so the files whose change makes
// it affected. The runner lists and hashes what this package says; the
// affected computation asks it about each changed file. Both ask the same
// functions, so "this target's key changed" and "this target is affected"
// never differ (a property test holds them together).
//
// A target of project P reads:
//
//   - its own inputs: the files under P's directory that its input globs
//     match (a glob naming a directory, "src" or "src/", takes everything
//     in it), and P's manifests (package.json, go.mod, go.sum,
//     pyproject.toml) when it has any glob; without inputs, every file
//     under P's directory ("**/*"). What git ignores is left out, as git
//     leaves it out (a .gitignore'd tool log is not an input), unless a
//     glob without wildcards names it or a directory above it: a target
//     can name a generated file it reads (inputs: [.env, gen/schema.json]).
//     Never what is under .git, node_modules or core's cache directory,
//     and never the target's own outputs;
//   - the manifests in the directories above P's (the module or workspace
//     P builds in: a go.mod and go.sum, a package.json, a pyproject.toml)
//     when it takes its own manifests, and the .gitignore files above
//     P's directory when a glob of it has a wildcard (they say what it
//     matches);
//   - its // inputs, globs relative to the workspace root;
//   - the global inputs: the lockfiles, go.work and global_inputs;
//   - unless it says dependency_inputs: none, the inputs of every project
//     P depends on, transitively: declared in targets.yaml, named by a
//     manifest, or implied by an import (Project.Imports). A project's
//     inputs (its part) are the files it owns (not those of a project
//     nested in its directory) that one of its targets reads as its own
//     inputs (and the files above its directory they take); every file
//     git does not ignore when it has no targets.
//
// A project on a dependency cycle reaches itself, so its own part is then
// among its dependencies' too. Until the imports of a workspace are known
// (workspace.Workspace.ImportsKnown), every project counts as depending on
// every other: a key that missed an import would replay a stale result.
package inputs

import (
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/workspace"
)

// InputMatch reports whether the file rel (slash-separated, relative to
// the target's project directory) matches the target's input globs (or
// is a manifest of its project), is not inside .git or node_modules and
// is not one of the target's own outputs. It does not read .gitignore
// files: Rule.OwnInput does.
func InputMatch(t *workspace.Target, rel string) bool {
	return !neverPath(rel) && compile(t).file(rel, false)
}

// OutputMatch reports whether rel (relative to t's project) is one of the
// target's outputs: the rule the review uses to call a file generated.
func OutputMatch(t *workspace.Target, rel string) bool { return isOutput(t.Outputs, rel) }

// IsOutput reports whether rel (relative to a project), or a directory
// above it, matches one of the output globs: what a cache entry may
// restore.
func IsOutput(outputs []string, rel string) bool { return isOutput(outputs, rel) }

// GlobalInputs are the globs, relative to the workspace root, whose files
// are in every target's key: the lockfiles, then global_inputs.
func GlobalInputs(ws *workspace.Workspace) []string {
	return append(workspace.DefaultGlobalInputs(), ws.GlobalInputs...)
}

// isManifest reports whether rel (relative to a project) is one of the
// project's manifests, an input of each of its targets that has inputs.
func isManifest(rel string) bool {
	return !strings.Contains(rel, "/") && slices.Contains(workspace.Manifests, rel)
}

func neverPath(rel string) bool {
	for part := range strings.SplitSeq(rel, "/") {
		if ignore.NeverName(part) {
			return true
		}
	}
	return false
}

// trimGlobs is globs without trailing slashes and empty entries.
func trimGlobs(globs []string) []string {
	out := make([]string, 0, len(globs))
	for _, g := range globs {
		if g = strings.TrimSuffix(g, "/"); g != "" {
			out = append(out, g)
		}
	}
	return out
}

// matchUp reports whether rel, or a directory above it, matches one of the
// globs: a glob that names a directory ("src", "src/", "bin/") takes
// everything in it, for inputs and outputs alike.
func matchUp(globs []string, rel string) bool {
	for p := rel; p != "." && p != "" && p != "/"; p = path.Dir(p) {
		for _, g := range globs {
			if ok, _ := doublestar.Match(g, p); ok {
				return true
			}
		}
	}
	return false
}

// isOutput reports whether rel, or a directory above it, matches one of the
// output globs ("bin/" names the directory bin and everything in it).
func isOutput(outputs []string, rel string) bool {
	if len(outputs) == 0 {
		return false
	}
	for p := rel; p != "." && p != "" && p != "/"; p = path.Dir(p) {
		if matchOutput(outputs, p) {
			return true
		}
	}
	return false
}

func matchOutput(outputs []string, rel string) bool {
	for _, o := range outputs {
		o = strings.TrimSuffix(o, "/")
		if ok, _ := doublestar.Match(o, rel); ok {
			return true
		}
	}
	return false
}

// globBase returns the directory part of a glob before its first wildcard,
// or the whole of a glob without one: "src/**/*.go" -> "src", "**/*" -> "",
// "cmd/*/main.go" -> "cmd", "web/src" -> "web/src". A directory that is
// neither above nor below any glob's base cannot hold an input.
func globBase(g string) string {
	if !strings.ContainsAny(g, `*?[{\`) {
		return g
	}
	segs := strings.Split(g, "/")
	var base []string
	for i, s := range segs {
		if i == len(segs)-1 || strings.ContainsAny(s, `*?[{\`) {
			break
		}
		base = append(base, s)
	}
	return strings.Join(base, "/")
}

// set is one target's compiled input rule (or the rule of a project's
// part when it has no targets).
type set struct {
	globs     []string
	shapes    []globShape
	all       bool // a glob matches every file ("**/*" or "**")
	outputs   []string
	manifests bool // the project's manifests are inputs too (it has a glob)
	// literals are the globs without wildcards: the paths they name are
	// inputs even where git ignores them. wild says some glob has a
	// wildcard: what it matches depends on the .gitignore files.
	literals []string
	wild     bool
}

// globShape is what the walk needs to know of a glob to skip directories.
type globShape struct {
	base     string // see globBase
	segments int    // number of path segments
	deep     bool   // holds "**": matches at any depth
}

func compile(t *workspace.Target) *set {
	globs := t.Inputs
	if globs == nil {
		globs = workspace.DefaultInputs()
	}
	return newSet(globs, t.Outputs)
}

func newSet(globs, outputs []string) *set {
	s := &set{globs: trimGlobs(globs), outputs: outputs}
	s.manifests = len(s.globs) > 0
	for _, g := range s.globs {
		if g == "**/*" || g == "**" {
			s.all = true
		}
		if base := globBase(g); base == g {
			s.literals = append(s.literals, g)
		} else {
			s.wild = true
		}
		s.shapes = append(s.shapes, globShape{base: globBase(g), segments: strings.Count(g, "/") + 1, deep: strings.Contains(g, "**")})
	}
	return s
}

// named reports whether a glob without wildcards names rel or a directory
// above it.
func (s *set) named(rel string) bool {
	for _, l := range s.literals {
		if rel == l || strings.HasPrefix(rel, l+"/") {
			return true
		}
	}
	return false
}

// file reports whether the file rel (relative to the project, never under
// .git or node_modules) is an input; ignored says git ignores it.
func (s *set) file(rel string, ignored bool) bool {
	if isOutput(s.outputs, rel) {
		return false
	}
	if s.manifests && isManifest(rel) {
		return true
	}
	if ignored {
		return s.named(rel)
	}
	return s.all || matchUp(s.globs, rel)
}

// dir reports whether the directory rel may hold inputs; ignored says git
// ignores it (and so everything below it).
func (s *set) dir(rel string, ignored bool) bool {
	if matchOutput(s.outputs, rel) {
		return false
	}
	if ignored {
		for _, l := range s.literals {
			if l == rel || strings.HasPrefix(l, rel+"/") || strings.HasPrefix(rel, l+"/") {
				return true
			}
		}
		return false
	}
	if s.all || matchUp(s.globs, rel) {
		return true
	}
	depth := strings.Count(rel, "/") + 1
	for _, g := range s.shapes {
		if !g.deep && g.segments <= depth {
			continue // too shallow to match anything below rel
		}
		b := g.base
		if b == "" || b == rel || strings.HasPrefix(b, rel+"/") || strings.HasPrefix(rel, b+"/") {
			return true
		}
	}
	return false
}
