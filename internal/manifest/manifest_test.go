package manifest

import (
	"slices"
	"testing"
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
	if w := PackageWorkspaces(data); !slices.Equal(w, []string{"packages/*"}) {
		t.Errorf("PackageWorkspaces (Yarn's object) = %q", w)
	}
	if w := PackageWorkspaces([]byte(`{"workspaces": ["a", "b/*"]}`)); !slices.Equal(w, []string{"a", "b/*"}) {
		t.Errorf("PackageWorkspaces (a list) = %q", w)
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
