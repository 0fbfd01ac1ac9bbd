package main

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

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/ignore"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/workspace"
)

func newInitCmd(g *globals) *cobra.Command {
	var print, force bool
	cmd := &cobra.Command{
		Use:   "init [DIR] [--print] [--force]",
		Short: "Write a starting targets.yaml for an existing repository",
		Long: `Finds the projects of a repository and writes a targets.yaml for them:
  - a directory with go.mod: build, test and lint (go build, go test, go vet);
  - a package.json workspace package (or a lone package.json): a target for
    each of its build, test and lint scripts (npm run ...);
  - a directory with pyproject.toml: test (python3 -m pytest).
At the top it writes what those tools usually need of the environment, since
a target gets only the base variables and those targets.yaml lists: env: the
variables that change what they make (GOFLAGS, GOOS, NODE_ENV: in every key),
pass_env: those they need to reach their registries (proxies, GOPROXY,
GOPRIVATE, NPM_TOKEN, PIP_INDEX_URL: passed, not keyed), and, commented out,
their certificate variables (NODE_EXTRA_CA_CERTS costs every Node start
~50 ms; uncomment it for a target that downloads through a TLS-intercepting
proxy). It skips what is not source (.git, node_modules, the cache, .gitignore'd
paths) and writes no deps: core infers them from imports. Read the result,
then see docs/targets.md for every field. DIR is the repository (default: the
current directory). --print writes to stdout instead; an existing
targets.yaml is kept unless --force.`,
		Example: `  core init
  core init ../other-repo --print`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			} else if g.workspace != "" {
				dir = g.workspace
			}
			root, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			target := filepath.Join(root, workspace.FileName)
			if _, err := os.Stat(target); err == nil && !force && !print {
				return fmt.Errorf("%s already exists: --print shows what init would write, --force replaces it", target)
			}
			projects, err := discover(root)
			if err != nil {
				return err
			}
			if len(projects) == 0 {
				return fmt.Errorf("found no project under %s (no go.mod, package.json or pyproject.toml): write targets.yaml by hand, see docs/targets.md", root)
			}
			text, err := renderTargets(projects)
			if err != nil {
				return err
			}
			if _, err := workspace.Parse(workspace.FileName, []byte(text)); err != nil {
				return fmt.Errorf("init wrote a targets.yaml core does not accept (a bug): %w", err)
			}
			out := cmd.OutOrStdout()
			if print {
				_, err := out.Write([]byte(text))
				return err
			}
			if err := fsx.WriteFileAtomic(target, []byte(text), 0o644); err != nil {
				return err
			}
			for _, p := range projects {
				fmt.Fprintf(out, "  %-20s %-30s %s (%s)\n", p.Name, p.Path, strings.Join(p.targetNames(), ", "), p.from)
			}
			fmt.Fprintf(out, "wrote %s with %s; next: core describe graph, core run build\n", target, plural(len(projects), "project"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the file instead of writing it")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing targets.yaml")
	return cmd
}

type initProject struct {
	Name    string
	Path    string
	from    string
	targets [][2]any // name, argv
}

func (p initProject) targetNames() []string {
	out := make([]string, len(p.targets))
	for i, t := range p.targets {
		out[i] = t[0].(string)
	}
	return out
}

var nameUnsafe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9_-]+`) })

// discover walks root for project manifests.
func discover(root string) ([]initProject, error) {
	rule := ignore.New(root, filepath.Join(root, ".core"))
	var found []initProject
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
			found = append(found, initProject{Path: dir, from: "go.mod", targets: [][2]any{
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
			if t := npmTargets(p); len(t) > 0 {
				found = append(found, initProject{Path: dir, from: "package.json", targets: t})
			}
		case "pyproject.toml":
			found = append(found, initProject{Path: dir, from: "pyproject.toml", targets: [][2]any{
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
	slices.SortStableFunc(found, func(a, b initProject) int { return strings.Compare(a.Path, b.Path) })
	var out []initProject
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

// npmTargets are the package's build, test and lint scripts as targets.
func npmTargets(path string) [][2]any {
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
func renderTargets(projects []initProject) (string, error) {
	var b strings.Builder
	b.WriteString("# yaml-language-server: $schema=https://raw.githubusercontent.com/corehq/core/main/docs/targets.schema.json\n")
	b.WriteString("# Written by `core init`; docs/targets.md in core's repository describes every field.\n")
	writeEnvironment(&b, projects)
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

// initTools maps the manifest a project was found by to its tool.
var initTools = map[string]string{"go.mod": targetenv.ToolGo, "package.json": targetenv.ToolNode, "pyproject.toml": targetenv.ToolPython}

// writeEnvironment writes the top-level env: and pass_env: the projects'
// tools usually need (targetenv.UsualFor), the certificate variables
// commented out.
func writeEnvironment(b *strings.Builder, projects []initProject) {
	var tools []string
	for _, p := range projects {
		if t := initTools[p.from]; t != "" && !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	slices.Sort(tools)
	u := targetenv.UsualFor(tools...)
	if len(u.Pass) == 0 {
		return
	}
	b.WriteString("# A target's process gets the base variables (PATH, HOME, the locale, where the\n")
	b.WriteString("# toolchains keep their caches) and those listed here or on it: env: are in\n")
	b.WriteString("# every target's key, pass_env: are passed without being in one.\n")
	if len(u.Env) > 0 {
		fmt.Fprintf(b, "env: [%s]\n", strings.Join(u.Env, ", "))
	}
	b.WriteString("pass_env:\n")
	for _, n := range u.Pass {
		fmt.Fprintf(b, "  - %s\n", n)
	}
	if len(u.Certificates) > 0 {
		b.WriteString("  # A TLS-intercepting proxy's certificates: uncomment what a target that\n")
		b.WriteString("  # downloads through one needs. Not passed by default: a tool may read\n")
		b.WriteString("  # one whether it downloads or not (NODE_EXTRA_CA_CERTS costs every Node\n")
		b.WriteString("  # start ~50 ms).\n")
		for _, n := range u.Certificates {
			fmt.Fprintf(b, "  # - %s\n", n)
		}
	}
}

// yamlScalar quotes s when YAML would read it as something else.
func yamlScalar(s string) string {
	out, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSpace(string(out))
}
