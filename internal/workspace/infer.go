package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// inferDeps reads the projects' manifests for dependencies between them
// that targets.yaml does not declare: a package.json dependency (any of
// dependencies, devDependencies, peerDependencies, optionalDependencies)
// on the name of a sibling project's package.json, or a go.mod replace that
// points at a sibling project's directory or a require of a sibling's
// module path (as a go.work's modules do). It records them on the projects
// (Project.Inferred), adds the ^target dependencies they imply, and reports
// a package.json that does not parse, or a cycle they close, as problems
// (a go.mod that does not parse is go's to report: nothing is inferred).
func inferDeps(root string, ws *Workspace) []Problem {
	var problems []Problem
	byPackage := map[string]string{} // npm package name -> project
	byDir := map[string]string{}     // project path -> project
	type npmDeps struct {
		file string
		deps []string
	}
	manifests := map[string]npmDeps{}
	for _, p := range ws.Projects {
		byDir[p.Path] = p.Name
		file := path.Join(p.Path, "package.json")
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, Problem{File: file, Message: fmt.Sprintf("cannot read it: %v", err)})
			continue
		}
		var pj struct {
			Name                 string            `json:"name"`
			Dependencies         map[string]string `json:"dependencies"`
			DevDependencies      map[string]string `json:"devDependencies"`
			PeerDependencies     map[string]string `json:"peerDependencies"`
			OptionalDependencies map[string]string `json:"optionalDependencies"`
		}
		if err := json.Unmarshal(data, &pj); err != nil {
			problems = append(problems, jsonProblem(file, data, err))
			continue
		}
		if pj.Name != "" {
			byPackage[pj.Name] = p.Name
		}
		var deps []string
		for _, m := range []map[string]string{pj.Dependencies, pj.DevDependencies, pj.PeerDependencies, pj.OptionalDependencies} {
			for name := range m {
				deps = append(deps, name)
			}
		}
		manifests[p.Name] = npmDeps{file, deps}
	}
	if len(problems) > 0 {
		return problems
	}
	goMods := map[string]*modfile.File{} // project -> its go.mod, when go can read it
	byModule := map[string]string{}      // Go module path -> project
	for _, p := range ws.Projects {
		file := path.Join(p.Path, "go.mod")
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
		if err != nil {
			continue
		}
		// A go.mod go cannot read is go's to report: nothing is inferred.
		if mf, err := modfile.Parse(file, data, nil); err == nil {
			goMods[p.Name] = mf
			if mf.Module != nil {
				byModule[mf.Module.Mod.Path] = p.Name
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
		if m, ok := manifests[p.Name]; ok {
			for _, name := range m.deps {
				add(byPackage[name], m.file)
			}
		}
		if mf := goMods[p.Name]; mf != nil {
			file := path.Join(p.Path, "go.mod")
			// A replace that points at a sibling's directory, or a require
			// of a sibling's module path (a go.work's modules need no
			// replace).
			for _, r := range mf.Replace {
				if r.New.Version == "" && strings.HasPrefix(r.New.Path, ".") {
					add(byDir[path.Clean(path.Join(p.Path, r.New.Path))], file)
				}
			}
			for _, r := range mf.Require {
				add(byModule[r.Mod.Path], file)
			}
		}
		sort.Slice(p.Inferred, func(i, j int) bool { return p.Inferred[i].Project < p.Inferred[j].Project })
	}
	if len(problems) > 0 {
		return problems
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

// cycleThroughManifests reports a target cycle that inferred dependencies
// closed (the declared ones were checked when targets.yaml was read).
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
			for _, p := range ws.Projects {
				for _, d := range p.Inferred {
					from = append(from, d.From)
				}
			}
			slices.Sort(from)
			return []Problem{{File: FileName, Message: fmt.Sprintf("dependency cycle through dependencies the manifests name: %s (manifests: %s); declare the order in targets.yaml or break the cycle", strings.Join(found, " -> "), strings.Join(slices.Compact(from), ", "))}}
		}
	}
	return nil
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
