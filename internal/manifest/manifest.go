// Package manifest reads what a project's manifests say, for every
// package that asks: package.json, tsconfig.json, go.mod and go.work,
// pyproject.toml; Read is the one bounded read of them.
// Each reader takes the file's bytes and returns what core uses of it,
// with the decoder's own error (a *json.SyntaxError or a *toml.DecodeError
// names where); what the entries mean (dependencies between projects,
// targets core init writes, a script a target runs) is the caller's.
package manifest

import (
	"golang.org/x/mod/modfile"
)

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
