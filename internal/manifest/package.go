package manifest

import (
	"encoding/json"
	"errors"
	"slices"
)

// Package is what core reads of a package.json, in one decode for every
// caller: dependency inference, the runner's script check, core init's
// scaffold and the index's import resolution.
type Package struct {
	Name           string `json:"name"`
	Main           string `json:"main"`
	Module         string `json:"module"`
	Types          string `json:"types"`
	Typings        string `json:"typings"`
	PackageManager string `json:"packageManager"`
	// Exports and Bin are kept as written: a string, a list or an object
	// of conditions or subpaths, which the resolver reads in its order.
	Exports json.RawMessage   `json:"exports"`
	Bin     json.RawMessage   `json:"bin"`
	Files   []string          `json:"files"`
	Scripts map[string]string `json:"scripts"`

	Dependencies         map[string]string `json:"dependencies"`
	DevDependencies      map[string]string `json:"devDependencies"`
	PeerDependencies     map[string]string `json:"peerDependencies"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	Workspaces           json.RawMessage   `json:"workspaces"`
}

// ParsePackage decodes a package.json. A file that is not JSON is
// (nil, the *json.SyntaxError). A field of an unexpected type ("name": 1)
// is left empty and the rest is read: the Package comes back with the
// *json.UnmarshalTypeError of the first such field, and each caller says
// whether that is a problem (dependency inference reports it; the
// scaffold and the index read what they can).
func ParsePackage(data []byte) (*Package, error) {
	var p Package
	if err := json.Unmarshal(data, &p); err != nil {
		if _, typ := errors.AsType[*json.UnmarshalTypeError](err); typ {
			return &p, err
		}
		return nil, err
	}
	return &p, nil
}

// Deps are the names of the package's dependencies of every kind
// (dependencies, devDependencies, peerDependencies, optionalDependencies),
// sorted and unique.
func (p *Package) Deps() []string {
	var deps []string
	for _, m := range []map[string]string{p.Dependencies, p.DevDependencies, p.PeerDependencies, p.OptionalDependencies} {
		for name := range m {
			deps = append(deps, name)
		}
	}
	slices.Sort(deps)
	return slices.Compact(deps)
}

// WorkspaceGlobs are the globs of the package's workspaces (a list, or
// Yarn's {"packages": [...]}); none when it has none or they do not read.
func (p *Package) WorkspaceGlobs() []string {
	if len(p.Workspaces) == 0 {
		return nil
	}
	var list []string
	if json.Unmarshal(p.Workspaces, &list) != nil {
		var obj struct{ Packages []string }
		_ = json.Unmarshal(p.Workspaces, &obj)
		list = obj.Packages
	}
	return list
}

// EntryPaths are the paths the package's entry points name, as written:
// main, module, types, typings, and every string in exports and bin,
// whatever their nesting.
func (p *Package) EntryPaths() []string {
	var out []string
	for _, s := range []string{p.Main, p.Module, p.Types, p.Typings} {
		if s != "" {
			out = append(out, s)
		}
	}
	var collect func(v any)
	collect = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case map[string]any:
			for _, x := range v {
				collect(x)
			}
		case []any:
			for _, x := range v {
				collect(x)
			}
		}
	}
	for _, raw := range []json.RawMessage{p.Exports, p.Bin} {
		var v any
		if len(raw) > 0 && json.Unmarshal(raw, &v) == nil {
			collect(v)
		}
	}
	return out
}

// PackageDeps reads a package.json's name and the names of its
// dependencies (Package.Deps); a field of an unexpected type is an error,
// as dependency inference reports it.
func PackageDeps(data []byte) (name string, deps []string, err error) {
	p, err := ParsePackage(data)
	if err != nil {
		return "", nil, err
	}
	return p.Name, p.Deps(), nil
}

// PackageScripts reads a package.json's scripts, by name.
func PackageScripts(data []byte) (map[string]string, error) {
	p, err := ParsePackage(data)
	if err != nil {
		return nil, err
	}
	return p.Scripts, nil
}
