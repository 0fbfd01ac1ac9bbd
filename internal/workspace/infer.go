package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/pelletier/go-toml/v2"
	"golang.org/x/mod/modfile"

	"github.com/corehq/core/internal/manifest"
	"github.com/corehq/core/internal/parallel"
)

// inferDeps reads the projects' manifests for dependencies between them
// that targets.yaml does not declare. It is the one place that decides
// which manifest entries are project dependencies:
//
//   - package.json: a dependency (any of dependencies, devDependencies,
//     peerDependencies, optionalDependencies) on the name of a sibling
//     project's package.json;
//   - go.mod: a replace that points at a sibling project's directory, or a
//     require of a sibling's module path (as a go.work's modules do); a
//     replace in the root's go.work to a sibling's directory counts for
//     every go.mod that requires the module it replaces;
//   - pyproject.toml: a PEP 508 requirement with a file: URL to a sibling's
//     directory (name @ file:../x, file:///abs inside the workspace, PDM's
//     ${PROJECT_ROOT} and Hatch's {root:uri}) in [project] dependencies,
//     optional-dependencies, [dependency-groups], uv's and PDM's dev
//     dependencies; a Poetry dependency with path = "../x" (main, dev and
//     group dependencies); a requirement uv's [tool.uv.sources] points at a
//     sibling's path, or marks workspace = true (resolved among the members
//     of the enclosing [tool.uv.workspace] by their [project] name).
//
// It records them on the projects (Project.Inferred), adds the ^target
// dependencies they imply, and reports a package.json or pyproject.toml
// that does not parse, or a cycle they close, as problems. A go.mod or
// go.work that does not parse is go's to report: nothing is inferred.
func inferDeps(root string, ws *Workspace) []Problem {
	var problems []Problem
	mr := manifest.NewReader(root) // every project's manifests, through one root
	defer mr.Close()
	byDir := map[string]string{} // project path -> project
	for _, p := range ws.Projects {
		byDir[p.Path] = p.Name
	}

	// Every project's package.json and go.mod, read and the package.json
	// parsed on every core (a workspace of hundreds of projects loads for
	// each run); what they say is taken below in the projects' order.
	type read struct {
		pj       packageJSON
		pjOK     bool
		problems []Problem
		mod      []byte
		modErr   error
		py       *pyproject
		pyPr     *Problem
	}
	reads := make([]read, len(ws.Projects))
	parallel.For(len(ws.Projects), func(i int) {
		p, r := ws.Projects[i], &reads[i]
		// The project's directory is walked to once for its three
		// manifests. A read that fails otherwise than by a missing file
		// (a symlink, which a manifest may not be) is made again through
		// the root, so that its error names the path as before.
		sub, subErr := mr.Sub(p.Path)
		if subErr == nil {
			defer sub.Close()
		}
		readIn := func(name string) ([]byte, error) {
			if subErr == nil {
				data, err := sub.Read(name)
				if err == nil || errors.Is(err, os.ErrNotExist) {
					return data, err
				}
			}
			return mr.Read(path.Join(p.Path, name))
		}
		file := path.Join(p.Path, "package.json")
		data, err := readIn("package.json")
		data, ok, pr := manifestRead(file, data, err)
		if pr != nil {
			r.problems = append(r.problems, *pr)
		}
		if ok {
			r.pj, pr = parsePackageJSON(file, data)
			if pr != nil {
				r.problems = append(r.problems, *pr)
			} else {
				r.pjOK = true
			}
		}
		r.mod, r.modErr = readIn("go.mod")
		pyFile := path.Join(p.Path, "pyproject.toml")
		data, err = readIn("pyproject.toml")
		if data, ok, pr := manifestRead(pyFile, data, err); pr != nil {
			r.pyPr = pr
		} else if ok {
			r.py, r.pyPr = parsePyproject(pyFile, data)
		}
	})

	// package.json
	byPackage := map[string]string{} // npm package name -> project
	npm := map[string]packageJSON{}  // project -> its package.json
	for i, p := range ws.Projects {
		problems = append(problems, reads[i].problems...)
		if !reads[i].pjOK {
			continue
		}
		pj := reads[i].pj
		p.scripts = pj.scripts
		if pj.Name != "" {
			byPackage[pj.Name] = p.Name
		}
		npm[p.Name] = pj
	}

	// pyproject.toml
	py := pyprojects{root: root, mr: mr, read: map[string]*pyproject{}}
	for i, p := range ws.Projects {
		py.read[p.Path] = reads[i].py
		if pr := reads[i].pyPr; pr != nil {
			problems = append(problems, *pr)
		}
	}
	if len(problems) > 0 {
		return problems
	}

	// go.mod, and the root's go.work
	goMods := map[string]*modfile.File{} // project -> its go.mod, when go can read it
	byModule := map[string]string{}      // Go module path -> project
	for i, p := range ws.Projects {
		file := path.Join(p.Path, "go.mod")
		data, err := reads[i].mod, reads[i].modErr
		if err != nil {
			continue
		}
		// A go.mod go cannot read is go's to report: nothing is inferred.
		if mf, err := manifest.ParseGoMod(file, data); err == nil {
			goMods[p.Name] = mf
			if mf.Module != nil {
				byModule[mf.Module.Mod.Path] = p.Name
			}
		}
	}
	workReplace := map[string]string{} // module path -> project its go.work replace points at
	if data, err := mr.Read("go.work"); err == nil {
		if wf, err := manifest.ParseGoWork("go.work", data); err == nil {
			for _, r := range wf.Replace {
				if r.New.Version == "" && strings.HasPrefix(r.New.Path, ".") {
					if dep := byDir[path.Clean(r.New.Path)]; dep != "" {
						workReplace[r.Old.Path] = dep
					}
				}
			}
		}
	}

	for _, p := range ws.Projects {
		add := func(dep, from string) {
			if dep == "" || dep == p.Name || slices.Contains(p.Deps, dep) || slices.ContainsFunc(p.Inferred, func(d InferredDep) bool { return d.Project == dep }) {
				return
			}
			p.Inferred = append(p.Inferred, InferredDep{Project: dep, From: from})
		}
		if pj, ok := npm[p.Name]; ok {
			for _, name := range pj.deps {
				add(byPackage[name], path.Join(p.Path, "package.json"))
			}
		}
		if mf := goMods[p.Name]; mf != nil {
			file := path.Join(p.Path, "go.mod")
			for _, r := range mf.Replace {
				if r.New.Version == "" && strings.HasPrefix(r.New.Path, ".") {
					add(byDir[path.Clean(path.Join(p.Path, r.New.Path))], file)
				}
			}
			for _, r := range mf.Require {
				add(byModule[r.Mod.Path], file)
				add(workReplace[r.Mod.Path], file)
			}
		}
		if pp, _ := py.at(p.Path); pp != nil {
			file := path.Join(p.Path, "pyproject.toml")
			for _, dir := range py.depDirs(p.Path, pp) {
				add(byDir[dir], file)
			}
		}
		sort.Slice(p.Inferred, func(i, j int) bool { return p.Inferred[i].Project < p.Inferred[j].Project })
	}

	// ^target over the inferred projects too.
	for _, p := range ws.Projects {
		for _, t := range p.Targets {
			for _, name := range t.caret {
				for _, d := range p.Inferred {
					if dt := ws.Target(d.Project + ":" + name); dt != nil && !slices.Contains(t.Deps, dt.ID()) {
						t.Deps = append(t.Deps, dt.ID())
					}
				}
			}
			sort.Strings(t.Deps)
		}
	}
	return cycleThroughManifests(ws)
}

// Reads reports whether Load reads the file at the slash path p (relative
// to the root) to know the projects and their dependencies: targets.yaml,
// the manifests inferDeps reads (package.json, go.mod and pyproject.toml
// anywhere, for a uv workspace's root may be above a project) and the
// root's go.work. A change to one needs a new Load; the server asks this.
func Reads(p string) bool {
	switch path.Base(p) {
	case "package.json", "go.mod", "pyproject.toml":
		return true
	}
	return p == FileName || p == "go.work"
}

// readManifest reads a manifest at a slash path under mr's root; a
// missing one is not a problem.
func readManifest(mr *manifest.Reader, file string) ([]byte, bool, *Problem) {
	data, err := mr.Read(file)
	return manifestRead(file, data, err)
}

// manifestRead is what readManifest makes of a read of file.
func manifestRead(file string, data []byte, err error) ([]byte, bool, *Problem) {
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &Problem{File: file, Message: fmt.Sprintf("cannot read it: %v", err)}
	}
	return data, true, nil
}

// cycleThroughManifests reports a target cycle that inferred dependencies
// closed (the declared ones were checked when targets.yaml was read), with
// the manifests that name the cycle's steps between projects.
func cycleThroughManifests(ws *Workspace) []Problem {
	state := map[string]int{} // 1 visiting, 2 done
	var stack []string
	var found []string
	var visit func(id string) bool
	visit = func(id string) bool {
		switch state[id] {
		case 1:
			i := slices.Index(stack, id)
			found = append(append([]string(nil), stack[i:]...), id)
			return true
		case 2:
			return false
		}
		state[id] = 1
		stack = append(stack, id)
		if t := ws.Target(id); t != nil {
			for _, d := range t.Deps {
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[id] = 2
		return false
	}
	for _, id := range ws.TargetIDs() {
		if visit(id) {
			var from []string
			for i := 1; i < len(found); i++ {
				a, _, _ := strings.Cut(found[i-1], ":")
				b, _, _ := strings.Cut(found[i], ":")
				if p := ws.Project(a); p != nil && a != b {
					for _, d := range p.Inferred {
						if d.Project == b {
							from = append(from, d.From)
						}
					}
				}
			}
			slices.Sort(from)
			return []Problem{{File: FileName, Message: fmt.Sprintf("dependency cycle through dependencies the manifests name: %s (manifests: %s); declare the order in targets.yaml or break the cycle", strings.Join(found, " -> "), strings.Join(slices.Compact(from), ", "))}}
		}
	}
	return nil
}

// packageJSON is what inferDeps reads of a package.json.
type packageJSON struct {
	Name    string
	deps    []string        // the names of its dependencies of every kind, sorted
	scripts map[string]bool // the names of its scripts
}

// parsePackageJSON reads a package.json's name, dependencies and script
// names (manifest.ParsePackage); a file that is not JSON is a problem
// naming its line and column, and so is a field of an unexpected type.
func parsePackageJSON(file string, data []byte) (packageJSON, *Problem) {
	p, err := manifest.ParsePackage(data)
	if err != nil {
		pr := jsonProblem(file, data, err)
		return packageJSON{}, &pr
	}
	scripts := make(map[string]bool, len(p.Scripts))
	for name := range p.Scripts {
		scripts[name] = true
	}
	return packageJSON{Name: p.Name, deps: p.Deps(), scripts: scripts}, nil
}

// jsonProblem names the line and column of a JSON syntax error.
func jsonProblem(file string, data []byte, err error) Problem {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		before := data[:min(int(se.Offset), len(data))]
		line := bytes.Count(before, []byte{'\n'}) + 1
		col := len(before) - bytes.LastIndexByte(before, '\n')
		return Problem{File: file, Line: line, Column: col, Message: "not valid JSON: " + se.Error()}
	}
	return Problem{File: file, Message: "does not read as a package.json: " + err.Error()}
}

// pyproject is what inferDeps reads of a pyproject.toml.
type pyproject = manifest.Pyproject

// parsePyproject reads what inferDeps needs of a pyproject.toml
// (manifest.ParsePyproject). A file that is not TOML is a problem naming
// its line and column.
func parsePyproject(file string, data []byte) (*pyproject, *Problem) {
	pp, err := manifest.ParsePyproject(data)
	if err != nil {
		pr := tomlProblem(file, err)
		return nil, &pr
	}
	return pp, nil
}

// tomlProblem names the line and column of a TOML error.
func tomlProblem(file string, err error) Problem {
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		return Problem{File: file, Line: line, Column: col, Message: "not valid TOML: " + strings.TrimPrefix(de.Error(), "toml: ")}
	}
	return Problem{File: file, Message: "does not read as a pyproject.toml: " + err.Error()}
}

// pyprojects reads the pyproject.toml files of directories under root,
// each once.
type pyprojects struct {
	root string
	mr   *manifest.Reader      // of root
	read map[string]*pyproject // slash dir -> its file (nil when none)
}

// at is the pyproject.toml of the slash directory dir, nil when there is
// none; a problem when it does not parse.
func (py *pyprojects) at(dir string) (*pyproject, *Problem) {
	if pp, ok := py.read[dir]; ok {
		return pp, nil
	}
	file := path.Join(dir, "pyproject.toml")
	data, ok, pr := readManifest(py.mr, file)
	var pp *pyproject
	if ok {
		pp, pr = parsePyproject(file, data)
	}
	py.read[dir] = pp
	return pp, pr
}

// uvWorkspace is the directory of the uv workspace dir is a member of (its
// root, at dir or above it, whose members globs match dir and whose
// exclude globs do not), or false.
func (py *pyprojects) uvWorkspace(dir string) (string, bool) {
	for d := dir; ; d = path.Dir(d) {
		if pp, _ := py.at(d); pp != nil && pp.UVWorkspace && (d == dir || pyMember(pp, d, dir)) {
			return d, true
		}
		if d == "." {
			return "", false
		}
	}
}

// pyMember reports whether dir is a member of the uv workspace whose root
// pp is, at rootDir.
func pyMember(pp *pyproject, rootDir, dir string) bool {
	rel := dir
	if rootDir != "." {
		rel = strings.TrimPrefix(dir, rootDir+"/")
	}
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := doublestar.Match(path.Clean(g), rel); ok {
				return true
			}
		}
		return false
	}
	return match(pp.Members) && !match(pp.Exclude)
}

// depDirs are the slash directories, relative to root, that the
// pyproject.toml at dir names as its dependencies.
func (py *pyprojects) depDirs(dir string, pp *pyproject) []string {
	var out []string
	rel := func(base, p string) {
		if d, ok := py.local(base, p); ok {
			out = append(out, d)
		}
	}
	for _, p := range pp.Paths {
		rel(dir, p)
	}
	// uv's sources: the root's apply to every member, a member's own win.
	sources := map[string]struct {
		manifest.Source
		base string
	}{}
	uvRoot, inUV := py.uvWorkspace(dir)
	if inUV && uvRoot != dir {
		if rp, _ := py.at(uvRoot); rp != nil {
			for name, s := range rp.Sources {
				sources[name] = struct {
					manifest.Source
					base string
				}{s, uvRoot}
			}
		}
	}
	for name, s := range pp.Sources {
		sources[name] = struct {
			manifest.Source
			base string
		}{s, dir}
	}
	for _, r := range pp.Requires {
		if r.URL != "" {
			if d, ok := py.fileURL(dir, r.URL); ok {
				out = append(out, d)
			}
			continue
		}
		s, ok := sources[r.Name]
		switch {
		case !ok:
		case s.Path != "":
			rel(s.base, s.Path)
		case s.Workspace && inUV:
			if d, ok := py.member(uvRoot, r.Name); ok {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// member is the directory of the uv workspace's member (at rootDir) whose
// [project] name is name, among the directories that hold a pyproject.toml
// read so far (every project's).
func (py *pyprojects) member(rootDir, name string) (string, bool) {
	rp, _ := py.at(rootDir)
	var dirs []string
	for d, pp := range py.read {
		if pp != nil && pp.Name == name && (d == rootDir || rp != nil && underDir(d, rootDir) && pyMember(rp, rootDir, d)) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		return "", false
	}
	slices.Sort(dirs)
	return dirs[0], true
}

func underDir(d, dir string) bool {
	return dir == "." || strings.HasPrefix(d, dir+"/")
}

// fileURL is the slash directory, relative to root, that a requirement's
// URL names: file:rel (relative to dir), file:///abs or file://localhost/abs
// inside root, PDM's ${PROJECT_ROOT} and Hatch's {root:uri}, or a bare
// relative path (PDM's -e ./x). Other URLs name no directory.
func (py *pyprojects) fileURL(dir, u string) (string, bool) {
	abs := filepath.Join(py.root, filepath.FromSlash(dir))
	u = strings.ReplaceAll(u, "${PROJECT_ROOT}", filepath.ToSlash(abs))
	u = strings.ReplaceAll(u, "{root:uri}", "file://"+filepath.ToSlash(abs))
	if i := strings.IndexByte(u, '#'); i >= 0 {
		u = u[:i]
	}
	var p string
	switch {
	case strings.HasPrefix(u, "file://"):
		rest := strings.TrimPrefix(u, "file://")
		rest = strings.TrimPrefix(rest, "localhost")
		if !strings.HasPrefix(rest, "/") {
			return "", false // another host
		}
		p = rest
	case strings.HasPrefix(u, "file:"):
		p = strings.TrimPrefix(u, "file:")
	case strings.HasPrefix(u, "./") || strings.HasPrefix(u, "../") || u == "." || u == "..":
		p = u
	default:
		return "", false
	}
	if unescaped, err := url.PathUnescape(p); err == nil {
		p = unescaped
	}
	return py.local(dir, p)
}

// local is the slash directory, relative to root, of a path written in the
// manifest at dir: relative to dir, or absolute inside root.
func (py *pyprojects) local(dir, p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if !path.IsAbs(p) {
		return path.Clean(path.Join(dir, p)), true
	}
	r, err := filepath.Rel(py.root, filepath.FromSlash(p))
	if err != nil {
		return "", false
	}
	r = filepath.ToSlash(r)
	if r == ".." || strings.HasPrefix(r, "../") {
		return "", false // outside the workspace
	}
	return r, true
}
