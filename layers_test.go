package core

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/corehq/core"

// TestLayers holds the dependency rule: cmd -> server -> handlers ->
// gateway -> internal/*. It reads the imports of every non-generated Go
// file (tests included) and fails on one that points up or sideways.
func TestLayers(t *testing.T) {
	forbidden := []struct {
		dir, why string
		imports  []string
	}{
		{"cmd/", "the CLI builds servers through package server, never from handlers", []string{"/handlers"}},
		{"internal/", "domain packages sit below the gateway and know nothing of routes", []string{"/gateway", "/handlers", "/server", "/cmd/"}},
		{"gateway/", "the gateway serves whatever handlers are registered", []string{"/handlers", "/server", "/cmd/"}},
		{"handlers/", "handlers are registered by the server, never the reverse", []string{"/server", "/cmd/"}},
		{"server/", "the server is the composition root below the CLI", []string{"/cmd/"}},
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
			for _, rule := range forbidden {
				if !strings.HasPrefix(slash, rule.dir) {
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
