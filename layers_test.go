package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/corehq/core"

// TestLayers holds the dependency rule: cmd -> server -> front doors
// (handlers: HTTP, Connect, MCP; the CLI's commands) -> backend ->
// internal/* (domain, then plumbing: the packages named in plumbing, which
// import no domain package). The gateway sits beside the backend, below
// the handlers. It reads the imports of every non-generated Go file
// (tests included) and fails on one that points up or sideways.
func TestLayers(t *testing.T) {
	forbidden := []struct {
		dir, why string
		imports  []string
		codeOnly bool // its tests may import them (to check against them)
	}{
		{"cmd/", "the CLI builds servers through package server, never from handlers", []string{"/handlers"}, false},
		{"internal/", "domain packages sit below the gateway and the backend and know nothing of routes", []string{"/gateway", "/handlers", "/server", "/cmd/", "/backend"}, false},
		{"backend/", "the backend is what the front doors call: it knows no door, no route and no server", []string{"/gateway", "/handlers", "/server", "/cmd/"}, false},
		{"gateway/", "the gateway serves whatever handlers are registered", []string{"/handlers", "/server", "/cmd/", "/backend"}, false},
		{"internal/review/", "the review reads git and the inputs rule, not the runner", []string{"/internal/runner"}, true},
		{"internal/affected/", "what a change affects is the inputs rule's, not the runner's", []string{"/internal/runner"}, true},
		{"internal/insight/", "insight reads the run log (runlog), not the runner", []string{"/internal/runner"}, true},
		{"handlers/", "handlers are registered by the server, never the reverse", []string{"/server", "/cmd/"}, false},
		{"server/", "the server is the composition root below the CLI", []string{"/cmd/"}, false},
	}
	// The git reader and the plumbing import plumbing only: no domain
	// package, so that what reads git or a file knows nothing of targets,
	// runs or reviews.
	onlyPlumbing := map[string]string{
		"internal/diff/": "the git reader (read, patch, stamp) knows git and nothing of core's domain; the review page is package review's",
	}
	for _, p := range plumbing {
		onlyPlumbing["internal/"+p+"/"] = "plumbing sits below the domain"
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "proto" || path == "testdata" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(path)
		for _, spec := range f.Imports {
			imp, _ := strconv.Unquote(spec.Path.Value)
			rest, ok := strings.CutPrefix(imp, module)
			if !ok {
				continue
			}
			if dir := packageDir(slash); onlyPlumbing[dir] != "" && strings.HasPrefix(rest, "/internal/") && !isPlumbing(rest) && rest != "/"+strings.TrimSuffix(dir, "/") {
				t.Errorf("%s imports %s: %s", slash, imp, onlyPlumbing[dir])
			}
			for _, rule := range forbidden {
				if !strings.HasPrefix(slash, rule.dir) || rule.codeOnly && strings.HasSuffix(slash, "_test.go") {
					continue
				}
				for _, bad := range rule.imports {
					if rest == bad || strings.HasPrefix(rest, bad+"/") || strings.HasSuffix(bad, "/") && strings.HasPrefix(rest, bad) {
						t.Errorf("%s imports %s: %s", slash, imp, rule.why)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTheDoorsStayThin holds issue 31's bound on the front doors: a door
// parses, calls the backend and encodes, so the CLI's commands import at
// most 6 packages under internal/ and the handlers at most 8 (their code,
// every build tag's). A door that needs another is doing the backend's
// work.
func TestTheDoorsStayThin(t *testing.T) {
	fset := token.NewFileSet()
	for dir, most := range map[string]int{"cmd/core": 6, "handlers": 8} {
		seen := map[string]bool{}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, spec := range f.Imports {
				imp, _ := strconv.Unquote(spec.Path.Value)
				if strings.HasPrefix(imp, module+"/internal/") {
					seen[strings.TrimPrefix(imp, module+"/")] = true
				}
			}
		}
		if len(seen) > most {
			names := make([]string, 0, len(seen))
			for n := range seen {
				names = append(names, n)
			}
			slices.Sort(names)
			t.Errorf("%s imports %d packages under internal/, at most %d: %s; what a door needs beyond them belongs behind a backend method", dir, len(seen), most, strings.Join(names, ", "))
		}
	}
}

// plumbing are the packages under internal/ that know nothing of core's
// domain (workspaces, targets, runs, reviews): files, processes, git,
// quoting, caches' names, logs, what a manifest says, spreading work over
// the cores. Every other package under internal/ is the domain's.
var plumbing = []string{"apierr", "cachedir", "execx", "fsx", "gitx", "ignore", "jsonx", "logx", "manifest", "metrics", "parallel", "quote", "suggest", "testbed", "yamlx"}

func isPlumbing(imp string) bool {
	for _, p := range plumbing {
		if imp == "/internal/"+p || strings.HasPrefix(imp, "/internal/"+p+"/") {
			return true
		}
	}
	return false
}

// packageDir is the directory of a slash path, with a trailing slash.
func packageDir(slash string) string {
	return slash[:strings.LastIndex(slash, "/")+1]
}

// TestOnlyGitxRunsGit holds git's one home: outside internal/gitx, no
// code of core's own starts a git process (exec.Command or
// exec.CommandContext with "git"), so that every one gets gitx's
// configuration (no program a repository names runs). Tests, the testbed
// that sets up their repositories and the benchmark programs, which time
// git itself, are not core's code.
func TestOnlyGitxRunsGit(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(path)
		if d.IsDir() && (slash == "proto" || slash == "testdata" || slash == "bench" || slash == "internal/gitx" || slash == "internal/testbed" || strings.HasPrefix(d.Name(), ".") && path != ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Command" && sel.Sel.Name != "CommandContext") {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "exec" {
				return true
			}
			arg := call.Args[0]
			if sel.Sel.Name == "CommandContext" && len(call.Args) > 1 {
				arg = call.Args[1]
			}
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Value == `"git"` {
				t.Errorf("%s: runs git itself; run it through internal/gitx (gitx.Command), which keeps the repository's programs from running", fset.Position(call.Pos()))
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
