package backend

import (
	"path"
	"slices"

	"github.com/corehq/core/internal/manifest"
)

// PythonPackages are the packages a Python lock file (uv.lock,
// poetry.lock) pins, or a pyproject.toml requires (of every kind,
// Poetry's included), normalized as PEP 503 says (PyName); nil for a file
// that is missing or does not parse. rel is relative to root, and the
// read does not leave it.
func PythonPackages(root, rel string) []string {
	data, err := manifest.Read(root, rel)
	if err != nil {
		return nil
	}
	if path.Base(rel) != "pyproject.toml" {
		names, _ := manifest.ParsePyLock(data)
		return names
	}
	p, err := manifest.ParsePyproject(data)
	if err != nil {
		return nil
	}
	names := slices.Clone(p.Poetry)
	for _, r := range p.Requires {
		names = append(names, r.Name)
	}
	return names
}

// PyName normalizes a Python distribution name as PEP 503 does.
func PyName(s string) string { return manifest.PyName(s) }
