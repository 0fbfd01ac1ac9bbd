// Package manifest reads what a project's manifests say, for every
// package that asks: package.json, go.mod and go.work, pyproject.toml.
// Each reader takes the file's bytes and returns what core uses of it,
// with the decoder's own error (a *json.SyntaxError or a *toml.DecodeError
// names where); what the entries mean (dependencies between projects,
// targets core init writes, a script a target runs) is the caller's.
package manifest

import (
	"encoding/json"
	"slices"

	"golang.org/x/mod/modfile"
)

// PackageDeps reads a package.json's name and the names of its
// dependencies of every kind (dependencies, devDependencies,
// peerDependencies, optionalDependencies), sorted and unique.
func PackageDeps(data []byte) (name string, deps []string, err error) {
	var pj struct {
		Name                 string            `json:"name"`
		Dependencies         map[string]string `json:"dependencies"`
		DevDependencies      map[string]string `json:"devDependencies"`
		PeerDependencies     map[string]string `json:"peerDependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
	}
	if err := json.Unmarshal(data, &pj); err != nil {
		return "", nil, err
	}
	for _, m := range []map[string]string{pj.Dependencies, pj.DevDependencies, pj.PeerDependencies, pj.OptionalDependencies} {
		for name := range m {
			deps = append(deps, name)
		}
	}
	slices.Sort(deps)
	return pj.Name, slices.Compact(deps), nil
}

// PackageScripts reads a package.json's scripts, by name.
func PackageScripts(data []byte) (map[string]string, error) {
	var m struct {
		Scripts map[string]string `json:"scripts"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return m.Scripts, nil
}

// PackageWorkspaces reads the globs of a package.json's workspaces (a list,
// or Yarn's {"packages": [...]}); none when it has none or they do not
// read.
func PackageWorkspaces(data []byte) []string {
	var pj struct {
		Workspaces json.RawMessage `json:"workspaces"`
	}
	if json.Unmarshal(data, &pj) != nil || len(pj.Workspaces) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(pj.Workspaces, &list) != nil {
		var obj struct{ Packages []string }
		_ = json.Unmarshal(pj.Workspaces, &obj)
		list = obj.Packages
	}
	return list
}

// GoModulePath is the module path of a go.mod, "" when it has no module
// line (it reads that line only, and so reads a go.mod go would refuse).
func GoModulePath(data []byte) string { return modfile.ModulePath(data) }

// ParseGoMod parses a go.mod as go does (file names it in errors).
func ParseGoMod(file string, data []byte) (*modfile.File, error) {
	return modfile.Parse(file, data, nil)
}

// ParseGoWork parses a go.work as go does (file names it in errors).
func ParseGoWork(file string, data []byte) (*modfile.WorkFile, error) {
	return modfile.ParseWork(file, data, nil)
}
