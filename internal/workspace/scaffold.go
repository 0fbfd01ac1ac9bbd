package workspace

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/ignore"
)

// Scaffold finds the projects of the repository at root and writes a
// targets.yaml for them: what `core init` offers. environment writes the
// top-level section of what the tools of the manifests found need of the
// environment (the target environment's home knows that); nil writes
// none. It checks that the file loads, and answers the projects and the
// file's text.
func Scaffold(root string, environment func(manifests []string) string) ([]Scaffolded, string, error) {
	projects, err := discover(root)
	if err != nil || len(projects) == 0 {
		return projects, "", err
	}
	preamble := ""
	if environment != nil {
		var manifests []string
		for _, p := range projects {
			if !slices.Contains(manifests, p.From) {
				manifests = append(manifests, p.From)
			}
		}
		slices.Sort(manifests)
		preamble = environment(manifests)
	}
	text, err := renderTargets(preamble, projects)
	if err != nil {
		return nil, "", err
	}
	if _, err := Parse(FileName, []byte(text)); err != nil {
		return nil, "", fmt.Errorf("init wrote a targets.yaml core does not accept (a bug): %w", err)
	}
	return projects, text, nil
}

// Scaffolded is a project Scaffold found: its name, directory, the
// manifest that made it one, and the targets written for it.
type Scaffolded struct {
	Name    string
	Path    string
	From    string
	targets [][2]any // name, argv
}

// TargetNames are the names of the targets written for it.
func (p Scaffolded) TargetNames() []string {
	out := make([]string, len(p.targets))
	for i, t := range p.targets {
		out[i] = t[0].(string)
	}
	return out
}

var nameUnsafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })

// discover walks root for project manifests.
func discover(root string) ([]Scaffolded, error) {
	rule := ignore.New(root, filepath.Join(root, ".core"))
	var found []Scaffolded
	var pkgGlobs []string // package.json workspaces of the root
	if data, err := os.ReadFile(filepath.Join(root, "package.json")); err == nil {
		var pj struct {
			Workspaces json.RawMessage `json:"workspaces"`
		}
		if json.Unmarshal(data, &pj) == nil && len(pj.Workspaces) > 0 {
			var list []string
			if json.Unmarshal(pj.Workspaces, &list) != nil {
				var obj struct{ Packages []string }
				_ = json.Unmarshal(pj.Workspaces, &obj)
				list = obj.Packages
			}
			pkgGlobs = list
		}
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner is not a reason to stop
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (ignore.NeverName(d.Name()) || strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor" || rule.Skipped(rel, true)) {
				return filepath.SkipDir
			}
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		switch d.Name() {
		case "go.mod":
			found = append(found, Scaffolded{Path: dir, From: "go.mod", targets: [][2]any{
				{"build", []string{"go", "build", "./..."}},
				{"test", []string{"go", "test", "./..."}},
				{"lint", []string{"go", "vet", "./..."}},
			}})
		case "package.json":
			if dir == "." && len(pkgGlobs) > 0 {
				return nil // the workspace root, not a package
			}
			if len(pkgGlobs) > 0 && !matchesAny(pkgGlobs, dir) {
				return nil
			}
			if t := scaffoldScripts(p); len(t) > 0 {
				found = append(found, Scaffolded{Path: dir, From: "package.json", targets: t})
			}
		case "pyproject.toml":
			found = append(found, Scaffolded{Path: dir, From: "pyproject.toml", targets: [][2]any{
				{"test", []string{"python3", "-m", "pytest"}},
			}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// One project per directory (the first manifest found names it), named
	// after the directory, unique.
	slices.SortStableFunc(found, func(a, b Scaffolded) int { return strings.Compare(a.Path, b.Path) })
	var out []Scaffolded
	used := map[string]bool{}
	for _, p := range found {
		if len(out) > 0 && out[len(out)-1].Path == p.Path {
			continue
		}
		base := filepath.Base(p.Path)
		if p.Path == "." {
			base = filepath.Base(root)
		}
		name := strings.Trim(nameUnsafe().ReplaceAllString(strings.ToLower(base), "-"), "-_")
		if name == "" {
			name = "root"
		}
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d", strings.TrimRight(name, "-0123456789"), i)
		}
		used[name] = true
		p.Name = name
		out = append(out, p)
	}
	return out, nil
}

func matchesAny(globs []string, dir string) bool {
	for _, g := range globs {
		g = strings.TrimSuffix(strings.TrimPrefix(g, "./"), "/")
		if ok, _ := filepath.Match(g, dir); ok || g == dir {
			return true
		}
		if strings.HasSuffix(g, "/**") && strings.HasPrefix(dir, strings.TrimSuffix(g, "**")) {
			return true
		}
	}
	return false
}

// scaffoldScripts are the package's build, test and lint scripts as targets.
func scaffoldScripts(path string) [][2]any {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var pj struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(data, &pj) != nil {
		return nil
	}
	var out [][2]any
	for _, s := range []string{"build", "test", "lint"} {
		if _, ok := pj.Scripts[s]; ok {
			out = append(out, [2]any{s, []string{"npm", "run", s}})
		}
	}
	return out
}

// renderTargets writes the projects as targets.yaml.
func renderTargets(preamble string, projects []Scaffolded) (string, error) {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=https://raw.githubusercontent.com/corehq/core/main/docs/targets.schema.json\n")
	b.WriteString("# Written by `core init`; docs/targets.md in core's repository describes every field.\n")
	b.WriteString(preamble)
	b.WriteString("projects:\n")
	for _, p := range projects {
		fmt.Fprintf(&b, "  %s:\n    path: %s\n", p.Name, yamlScalar(p.Path))
		if len(p.targets) == 0 {
			continue
		}
		b.WriteString("    targets:\n")
		for _, t := range p.targets {
			argv := t[1].([]string)
			items := make([]string, len(argv))
			for i, a := range argv {
				items[i] = yamlScalar(a)
			}
			fmt.Fprintf(&b, "      %s:\n        run: [%s]\n", t[0], strings.Join(items, ", "))
		}
	}
	return b.String(), nil
}

// yamlScalar quotes s when YAML would read it as something else.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSpace(string(out))
}
