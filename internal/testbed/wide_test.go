package testbed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAWideWorkspaceHasItsProjectsAndFiles(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "wide")
	n, err := WriteWideWorkspace(dir, 3, 120)
	if err != nil {
		t.Fatal(err)
	}
	if n != 360 {
		t.Errorf("wrote %d files, want 360", n)
	}
	got := 0
	_ = filepath.WalkDir(filepath.Join(dir, "projects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".go") {
			got++
		}
		return err
	})
	if got != 360 {
		t.Errorf("%d Go files on disk", got)
	}
	ty, _ := os.ReadFile(filepath.Join(dir, "targets.yaml"))
	for _, want := range []string{"p00:", "p02:", "deps: [p01]"} {
		if !strings.Contains(string(ty), want) {
			t.Errorf("targets.yaml lacks %q:\n%s", want, ty)
		}
	}
	f, _ := os.ReadFile(filepath.Join(dir, "projects", "p01", "d002", "f00100.go"))
	if !strings.Contains(string(f), `import _ "example.com/wide/projects/p01/d000"`) {
		t.Errorf("the last directory does not import the first:\n%s", f)
	}
}
