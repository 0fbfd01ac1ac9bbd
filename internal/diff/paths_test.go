package diff

import (
	"strings"
	"testing"
)

func TestAPathFilterKeepsFilesDirectoriesAndGlobs(t *testing.T) {
	f, err := ParsePaths([]string{"libs/util", "apps/*/main.go", "**/*_test.go", "docs/"})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"libs/util/slug.go":       true,
		"libs/util":               true,
		"libs/utility/x.go":       false,
		"apps/web/main.go":        true,
		"apps/web/sub/main.go":    false,
		"services/auth/x_test.go": true,
		"docs/a.md":               true,
		"README.md":               false,
	} {
		if got := f.Match(p); got != want {
			t.Errorf("Match(%s) = %v, want %v", p, got, want)
		}
	}
	if !f.MatchFile(File{Path: "elsewhere.go", OldPath: "libs/util/old.go"}) {
		t.Error("a file renamed out of a kept directory is not kept")
	}
	var none *PathFilter
	if !none.Match("anything") {
		t.Error("the nil filter keeps nothing")
	}
	if f, err := ParsePaths([]string{"."}); err != nil || f != nil {
		t.Errorf(". is the whole workspace: %v %v", f, err)
	}
}

func FuzzParsePaths(f *testing.F) {
	for _, s := range []string{"libs/util", "**/*.go", "../x", "/etc", "a/{b,c}", "a/[", "./a/../b", "a//b/"} {
		f.Add(s, "x/y.go")
	}
	f.Fuzz(func(t *testing.T, spec, file string) {
		pf, err := ParsePaths([]string{spec})
		if err != nil || pf == nil {
			return
		}
		for _, p := range pf.Paths() {
			if strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "\\") {
				t.Fatalf("%q was taken as %q, which leaves the workspace", spec, p)
			}
		}
		pf.Match(file) // never panics
	})
}
