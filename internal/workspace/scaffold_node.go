package workspace

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/manifest"
)

// nodeWorkspace is the root's JavaScript workspace: its package globs
// (package.json workspaces, or pnpm-workspace.yaml's packages) and the
// package manager that runs its scripts.
type nodeWorkspace struct {
	globs    []string // none: every package.json is a package
	manager  string   // npm, pnpm, yarn or bun
	lockfile string   // the root's lockfile, "" when there is none
}

// readNodeWorkspace reads the root's package.json and pnpm-workspace.yaml;
// nil when the root has neither.
func readNodeWorkspace(root string) *nodeWorkspace {
	var w nodeWorkspace
	found := false
	if data, err := manifest.Read(root, "package.json"); err == nil {
		found = true
		if pj, _ := manifest.ParsePackage(data); pj != nil {
			w.globs = pj.WorkspaceGlobs()
			w.manager, _, _ = strings.Cut(pj.PackageManager, "@")
		}
	}
	if data, err := manifest.Read(root, "pnpm-workspace.yaml"); err == nil {
		found = true
		var pw struct {
			Packages []string `yaml:"packages"`
		}
		if yaml.Unmarshal(data, &pw) == nil && len(pw.Packages) > 0 {
			w.globs = pw.Packages
		}
		if w.manager == "" {
			w.manager = "pnpm"
		}
	}
	if !found {
		return nil
	}
	for _, l := range []struct{ file, manager string }{
		{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"bun.lock", "bun"}, {"bun.lockb", "bun"},
		{"package-lock.json", "npm"}, {"npm-shrinkwrap.json", "npm"},
	} {
		if _, err := os.Stat(filepath.Join(root, l.file)); err == nil {
			w.lockfile = l.file
			if w.manager == "" {
				w.manager = l.manager
			}
			break
		}
	}
	if !slices.Contains([]string{"npm", "pnpm", "yarn", "bun"}, w.manager) {
		w.manager = "npm"
	}
	return &w
}

// member reports whether the directory dir (relative to the root) is a
// package of the workspace: a glob matches it and no ! glob does.
func (w *nodeWorkspace) member(dir string) bool {
	if len(w.globs) == 0 {
		return true
	}
	in := false
	for _, g := range w.globs {
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./"), "/")
		if ok, _ := doublestar.Match(g, dir); ok || g == dir {
			if neg {
				return false
			}
			in = true
		}
	}
	return in
}

// checkInstalled notes what the JavaScript projects found need before
// their first run: a package manager that does not run here, packages not
// installed (a build that imports a sibling by its package name cannot
// find it).
func (s *scaffolder) checkInstalled(found []Scaffolded) {
	var managers, missing []string
	workspace := s.node != nil && len(s.node.globs) > 0
	for _, p := range found {
		if !p.node {
			continue
		}
		if !slices.Contains(managers, p.manager) {
			managers = append(managers, p.manager)
		}
		if !installed(s.root, p.Path) {
			dir := p.Path
			if workspace {
				dir = "."
			}
			if !slices.Contains(missing, dir) {
				missing = append(missing, dir)
			}
		}
	}
	for _, m := range managers {
		if !s.o.Runs(s.root, m, "--version") {
			how := "install it"
			if m == "pnpm" || m == "yarn" {
				how = "`corepack enable` installs it"
			}
			s.note("the targets run %s, which does not run here (%s)", m, how)
		}
	}
	for _, dir := range missing {
		manager := "npm"
		if i := slices.IndexFunc(found, func(p Scaffolded) bool { return p.node && (p.Path == dir || dir == ".") }); i >= 0 {
			manager = found[i].manager
		}
		if dir == "." {
			s.note("the packages are not installed (no node_modules at the root): run `%s install` before `core run`", manager)
		} else {
			s.note("the packages of %s are not installed (no node_modules): run `%s install` in %s before `core run`", dir, manager, dir)
		}
	}
}

// installed reports whether a package's dependencies are installed where
// Node looks for them: a node_modules in its directory or one above it
// within the root (or yarn's Plug'n'Play, which has none).
func installed(root, dir string) bool {
	for d := dir; ; d = path.Dir(d) {
		for _, name := range []string{"node_modules", ".pnp.cjs"} {
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(d), name)); err == nil {
				return true
			}
		}
		if d == "." {
			return false
		}
	}
}

// scriptArgv is the argv that runs the package.json script name.
func (w *nodeWorkspace) scriptArgv(name string) []string {
	return []string{w.manager, "run", name}
}

// noTestScript is what npm init writes as the test script: a test that
// fails.
var noTestScript = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`no test specified.*exit 1`) })

// nodePackage is the project of the package.json in dir, nil when it is
// none: the root of a workspace, a directory the workspace's globs leave
// out, a package without a build, test or lint script.
func (s *scaffolder) nodePackage(dir string) *Scaffolded {
	w := s.node
	if dir == "." && w != nil && len(w.globs) > 0 {
		return nil // the workspace root, not a package
	}
	if w != nil && !w.member(dir) {
		return nil
	}
	abs := filepath.Join(s.root, filepath.FromSlash(dir))
	if w == nil || len(w.globs) == 0 {
		// no workspace: a package of its own, with its own lockfile
		if w = readNodeWorkspace(abs); w == nil {
			w = &nodeWorkspace{manager: "npm"}
		}
	}
	data, err := manifest.Read(abs, "package.json")
	if err != nil {
		return nil
	}
	pj, _ := manifest.ParsePackage(data) // what reads: a mistyped field is npm's to report
	if pj == nil {
		return nil
	}
	p := &Scaffolded{Path: dir, From: "package.json", node: true, manager: w.manager}
	for _, name := range []string{"build", "test", "lint"} {
		script, ok := pj.Scripts[name]
		if !ok {
			continue
		}
		if name == "test" && noTestScript().MatchString(script) {
			p.Skipped = append(p.Skipped, "no test target: its test script is npm init's placeholder, which fails")
			continue
		}
		t := scaffoldTarget{name: name, run: w.scriptArgv(name)}
		if name == "build" {
			t.outputs = s.nodeOutputs(dir, pj, script)
		}
		p.targets = append(p.targets, t)
	}
	if len(p.targets) == 0 {
		return nil
	}
	return p
}

// nodeOutputs are the directories a package's build writes, as outputs
// globs: the outDir (and declarationDir) of the tsconfig the build
// script compiles, and the directories the package's entry points
// (main, module, types, exports, bin) and its files name, of those that
// are no source: absent before the first build, or ignored by git.
func (s *scaffolder) nodeOutputs(dir string, pj *manifest.Package, script string) []string {
	var out []string
	add := func(d string) {
		d = path.Clean(strings.TrimPrefix(d, "./"))
		if d == "." || d == ".." || strings.HasPrefix(d, "../") || path.IsAbs(d) || d == "src" || d == "node_modules" {
			return
		}
		if !slices.Contains(out, d+"/") {
			out = append(out, d+"/")
		}
	}
	for _, d := range s.tsOutDirs(dir, script) {
		add(d)
	}
	// Entry points: the first directory of each path.
	paths := pj.EntryPaths()
	for _, f := range pj.Files {
		if !strings.HasPrefix(f, "!") {
			f = path.Clean(strings.TrimPrefix(f, "./"))
			if !strings.Contains(f, "/") && !strings.ContainsAny(f, "*?[{.") {
				f += "/*" // a directory: "dist"
			}
			paths = append(paths, f)
		}
	}
	for _, p := range paths {
		p = strings.TrimPrefix(path.Clean(strings.TrimPrefix(p, "./")), "./")
		first, _, nested := strings.Cut(p, "/")
		if !nested || strings.ContainsAny(first, "*?[{") {
			continue // a file at the package's root, or a pattern
		}
		rel := path.Join(dir, first)
		st, err := os.Stat(filepath.Join(s.root, filepath.FromSlash(rel)))
		if err == nil && (!st.IsDir() || !s.rule.Skipped(rel, true)) {
			continue // source: it is there, and git keeps it
		}
		add(first)
	}
	slices.Sort(out)
	return out
}

// tsProject is the tsconfig a build script compiles: the one -p,
// --project, -b or --build names, else tsconfig.json.
var tsProject = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\btsc\b[^&|;]*?(?:-p|--project|-b|--build)\s+(\S+\.json)`)
})

// tsOutDirs are the outDir and declarationDir of the tsconfig the build
// script compiles, relative to the package (following extends: within
// the workspace); none when the script runs no tsc and the package has no
// tsconfig.json, or it emits nothing.
func (s *scaffolder) tsOutDirs(dir, script string) []string {
	file := "tsconfig.json"
	if m := tsProject().FindStringSubmatch(script); m != nil {
		file = m[1]
		if !strings.HasSuffix(file, ".json") {
			file = path.Join(file, "tsconfig.json")
		}
	}
	opts := map[string]string{}
	seen := map[string]bool{}
	cur := path.Clean(path.Join(dir, file))
	for range 8 { // extends, bounded
		if seen[cur] || cur == ".." || strings.HasPrefix(cur, "../") {
			break
		}
		seen[cur] = true
		data, err := manifest.Read(s.root, cur)
		if err != nil {
			break
		}
		tc, err := manifest.ParseTSConfig(data)
		if err != nil {
			break
		}
		base := path.Dir(cur)
		set := func(key string, v *string) {
			if _, done := opts[key]; !done && v != nil {
				if rest, ok := strings.CutPrefix(*v, "${configDir}"); ok {
					// TypeScript 5.5: the directory of the tsconfig compiled
					opts[key] = path.Join(path.Dir(path.Join(dir, file)), rest)
					return
				}
				opts[key] = path.Join(base, *v)
			}
		}
		set("outDir", tc.CompilerOptions.OutDir)
		set("declarationDir", tc.CompilerOptions.DeclarationDir)
		if _, done := opts["noEmit"]; !done && tc.CompilerOptions.NoEmit != nil {
			opts["noEmit"] = map[bool]string{true: "true", false: "false"}[*tc.CompilerOptions.NoEmit]
		}
		if len(tc.Extends) == 0 {
			break
		}
		ext := tc.Extends[len(tc.Extends)-1] // the last one wins
		if !strings.HasPrefix(ext, ".") {
			break // a package's: not in the workspace
		}
		if !strings.HasSuffix(ext, ".json") {
			ext += ".json"
		}
		cur = path.Clean(path.Join(base, ext))
	}
	if opts["noEmit"] == "true" {
		return nil
	}
	var out []string
	for _, key := range []string{"outDir", "declarationDir"} {
		if d, ok := opts[key]; ok {
			if rel, ok := strings.CutPrefix(d, dir+"/"); ok || dir == "." {
				if dir == "." {
					rel = d
				}
				out = append(out, rel)
			}
		}
	}
	return out
}
