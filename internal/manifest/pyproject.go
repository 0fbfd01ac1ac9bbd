package manifest

import (
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Pyproject is what core reads of a pyproject.toml (the workspace infers
// dependencies from it). Names are
// normalized as PEP 503 says (PyName).
type Pyproject struct {
	Name string // [project] name
	// Requires are the PEP 508 requirements of every kind: [project]
	// dependencies and optional-dependencies, [dependency-groups], uv's
	// and PDM's dev dependencies.
	Requires []Requirement
	// Poetry are the names of Poetry's dependencies (main, dev and
	// groups), normalized: Poetry writes them as keys, not PEP 508.
	Poetry []string
	// Tools are the names of the [tool.*] tables (pytest, ruff, ...).
	Tools []string
	// Paths are Poetry's path dependencies (main, dev and groups), as
	// written: relative to the file's directory.
	Paths []string
	// Sources are [tool.uv.sources]: by requirement name, a path as
	// written (relative to the file's directory) or workspace = true.
	Sources map[string]Source
	// Members and Exclude are the globs of [tool.uv.workspace], relative
	// to the file's directory; UVWorkspace says whether the table exists.
	UVWorkspace      bool
	Members, Exclude []string
}

// Requirement is one PEP 508 requirement: a name, and the URL after @
// when there is one (with PDM's -e, the URL or path alone).
type Requirement struct {
	Name string
	URL  string
}

// Source is a uv source of a requirement.
type Source struct {
	Path      string
	Workspace bool
}

// ParsePyproject reads what core needs of a pyproject.toml. A file that
// is not TOML is go-toml's error (a *toml.DecodeError names its line and
// column); entries of an unexpected shape are the package manager's to
// report and are skipped.
func ParsePyproject(data []byte) (*Pyproject, error) {
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := &Pyproject{Sources: map[string]Source{}}
	project := table(doc, "project")
	if name, ok := project["name"].(string); ok {
		out.Name = PyName(name)
	}
	reqs := func(v any) {
		for _, s := range strs(v) {
			if r, ok := ParseRequirement(s); ok {
				out.Requires = append(out.Requires, r)
			}
		}
	}
	reqs(project["dependencies"])
	for _, v := range table(project, "optional-dependencies") {
		reqs(v)
	}
	for _, v := range table(doc, "dependency-groups") {
		reqs(v) // include-group tables are not strings and are skipped
	}
	tool := table(doc, "tool")
	uv := table(tool, "uv")
	reqs(uv["dev-dependencies"])
	for _, v := range table(table(tool, "pdm"), "dev-dependencies") {
		reqs(v)
	}
	for name, v := range table(uv, "sources") {
		// A source is a table, or a list of them with markers.
		for _, s := range tables(v) {
			src := Source{}
			src.Path, _ = s["path"].(string)
			src.Workspace, _ = s["workspace"].(bool)
			if src.Path != "" || src.Workspace {
				out.Sources[PyName(name)] = src
				break
			}
		}
	}
	if w, ok := uv["workspace"].(map[string]any); ok {
		out.UVWorkspace = true
		out.Members = strs(w["members"])
		out.Exclude = strs(w["exclude"])
	}
	poetry := table(tool, "poetry")
	deps := []map[string]any{table(poetry, "dependencies"), table(poetry, "dev-dependencies")}
	for _, g := range table(poetry, "group") {
		if g, ok := g.(map[string]any); ok {
			deps = append(deps, table(g, "dependencies"))
		}
	}
	for name := range tool {
		out.Tools = append(out.Tools, name)
	}
	slices.Sort(out.Tools)
	for _, d := range deps {
		for name := range d {
			out.Poetry = append(out.Poetry, PyName(name))
		}
		for _, v := range d {
			// A dependency is a version string, a table, or a list of
			// tables (one per marker).
			for _, t := range tables(v) {
				if p, ok := t["path"].(string); ok && p != "" {
					out.Paths = append(out.Paths, p)
				}
			}
		}
	}
	slices.Sort(out.Paths)
	out.Paths = slices.Compact(out.Paths)
	slices.Sort(out.Poetry)
	out.Poetry = slices.Compact(out.Poetry)
	return out, nil
}

// table is m[key] when it is a table, else nil (which reads as empty).
func table(m map[string]any, key string) map[string]any {
	t, _ := m[key].(map[string]any)
	return t
}

// tables is v as a list of tables: v itself when it is one, the tables of
// an array, else none.
func tables(v any) []map[string]any {
	switch v := v.(type) {
	case map[string]any:
		return []map[string]any{v}
	case []any:
		var out []map[string]any
		for _, x := range v {
			if t, ok := x.(map[string]any); ok {
				out = append(out, t)
			}
		}
		return out
	case []map[string]any:
		return v
	}
	return nil
}

// strs is the strings of an array (other elements skipped).
func strs(v any) []string {
	a, _ := v.([]any)
	var out []string
	for _, x := range a {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// PyName normalizes a distribution name as PEP 503 does: lower case, runs
// of -, _ and . as one -.
func PyName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(s)) {
		if r == '-' || r == '_' || r == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// ParseRequirement reads the name of a PEP 508 requirement and its URL
// after @ (name[extras] @ url ; markers), or PDM's editable form (-e URL or
// -e path, whose name is the #egg= fragment when there is one).
func ParseRequirement(s string) (Requirement, bool) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "-e"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		u := strings.TrimSpace(rest)
		var name string
		if _, frag, ok := strings.Cut(u, "#egg="); ok {
			name = frag
		}
		return Requirement{Name: PyName(name), URL: u}, u != ""
	}
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9' || s[i] == '-' || s[i] == '_' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return Requirement{}, false
	}
	r := Requirement{Name: PyName(s[:i])}
	rest := strings.TrimSpace(s[i:])
	if strings.HasPrefix(rest, "[") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return r, true
		}
		rest = strings.TrimSpace(rest[end+1:])
	}
	if u, ok := strings.CutPrefix(rest, "@"); ok {
		u = strings.TrimSpace(u)
		// A marker follows the URL after whitespace and ';'.
		if j := strings.Index(u, " ;"); j >= 0 {
			u = u[:j]
		} else if j := strings.IndexAny(u, " \t"); j >= 0 {
			u = u[:j]
		}
		r.URL = strings.TrimSpace(u)
	}
	return r, true
}
