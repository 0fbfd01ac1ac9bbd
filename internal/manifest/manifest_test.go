package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/fsx"
)

func TestAPackageJSONReadsAsEachCallerNeedsIt(t *testing.T) {
	data := []byte(`{"name": "@shop/web", "scripts": {"build": "tsc"},
		"dependencies": {"b": "1"}, "devDependencies": {"a": "1", "b": "2"}, "peerDependencies": {"c": "1"},
		"workspaces": {"packages": ["packages/*"]}}`)
	if name, deps, err := PackageDeps(data); err != nil || name != "@shop/web" || !slices.Equal(deps, []string{"a", "b", "c"}) {
		t.Errorf("PackageDeps = %q, %q, %v", name, deps, err)
	}
	if s, err := PackageScripts(data); err != nil || s["build"] != "tsc" {
		t.Errorf("PackageScripts = %v, %v", s, err)
	}
	if p, err := ParsePackage(data); err != nil || !slices.Equal(p.WorkspaceGlobs(), []string{"packages/*"}) {
		t.Errorf("WorkspaceGlobs (Yarn's object) = %q, %v", p.WorkspaceGlobs(), err)
	}
	if p, _ := ParsePackage([]byte(`{"workspaces": ["a", "b/*"]}`)); !slices.Equal(p.WorkspaceGlobs(), []string{"a", "b/*"}) {
		t.Errorf("WorkspaceGlobs (a list) = %q", p.WorkspaceGlobs())
	}
	// A field of the wrong type is an error, and the rest still reads.
	p, err := ParsePackage([]byte(`{"name": 1, "main": "dist/a.js", "bin": {"x": "bin/x.js"}, "exports": {".": {"import": "./dist/a.mjs"}}}`))
	if err == nil || p == nil || !slices.Equal(slices.Sorted(slices.Values(p.EntryPaths())), []string{"./dist/a.mjs", "bin/x.js", "dist/a.js"}) {
		t.Errorf("ParsePackage with a mistyped name = %+v, %v", p, err)
	}
	for _, bad := range []string{`{`, `{"name": 1}`} {
		if _, _, err := PackageDeps([]byte(bad)); err == nil {
			t.Errorf("PackageDeps(%s) read", bad)
		}
	}
}

func TestAGoModsModulePath(t *testing.T) {
	if p := GoModulePath([]byte("// c\nmodule example.com/a // x\n\ngo 1.22\n")); p != "example.com/a" {
		t.Errorf("GoModulePath = %q", p)
	}
	if p := GoModulePath([]byte("go 1.22\n")); p != "" {
		t.Errorf("no module line: %q", p)
	}
}

func TestStripJSONCKeepsStringsAndDropsCommentsAndTrailingCommas(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": "//not a comment", "b": "/* nor this */",}`: `{"a":"//not a comment","b":"/* nor this */"}`,
		"[1, // one\n 2, /* two */ ]":                      "[1,2]",
		`{"esc\"aped": [1,],}`:                             `{"esc\"aped":[1]}`,
		"/* unclosed":                                      "",
	} {
		// Whitespace aside: comments become spaces.
		tight := func(s string) string { return strings.NewReplacer(" ", "", "\n", "").Replace(s) }
		if got := string(StripJSONC([]byte(in))); tight(got) != tight(want) {
			t.Errorf("StripJSONC(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestATSConfigReadsInItsOwnDialect(t *testing.T) {
	c, err := ParseTSConfig([]byte("// c\n{\"extends\": [\"./a\", \"./b.json\"], \"compilerOptions\": {\"outDir\": \"dist\", /* x */ \"noEmit\": false,},}"))
	if err != nil || !slices.Equal(c.Extends, []string{"./a", "./b.json"}) || *c.CompilerOptions.OutDir != "dist" || *c.CompilerOptions.NoEmit || c.CompilerOptions.DeclarationDir != nil {
		t.Fatalf("ParseTSConfig = %+v, %v", c, err)
	}
	if c, err := ParseTSConfig([]byte(`{"extends": "./base"}`)); err != nil || !slices.Equal(c.Extends, []string{"./base"}) {
		t.Errorf("one extends = %+v, %v", c, err)
	}
	if _, err := ParseTSConfig([]byte(`{"compilerOptions": {"outDir": 1}}`)); err == nil {
		t.Error("a mistyped option read")
	}
}

func TestAManifestIsReadBoundedAndInsideItsRoot(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "package.json"), make([]byte, MaxBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(root, "package.json"); !errors.Is(err, fsx.ErrTooLarge) {
		t.Errorf("a manifest over MaxBytes: %v", err)
	}
	outside := filepath.Join(t.TempDir(), "go.mod")
	if err := os.WriteFile(outside, []byte("module x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if data, err := Read(root, "out/go.mod"); err == nil {
		t.Errorf("a symlink out of the root read %q", data)
	}
	if _, err := Read(root, "go.work"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing manifest: %v, want os.ErrNotExist", err)
	}
}
