package inputs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestAPartsListingStandsUntilAnEntryIsAddedRemovedOrRenamed(t *testing.T) {
	changes := []struct {
		name   string
		change func(dir string) error
		holds  bool
	}{
		{"a file's content changes (the hash memo's to see)", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "main.go"), []byte("package api // changed"), 0o644)
		}, true},
		{"a file is added in a subdirectory", func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "internal", "new.go"), nil, 0o644)
		}, false},
		{"a file is removed", func(dir string) error { return os.Remove(filepath.Join(dir, "internal", "x.go")) }, false},
		{"a file is renamed", func(dir string) error {
			return os.Rename(filepath.Join(dir, "main.go"), filepath.Join(dir, "app.go"))
		}, false},
		{"a directory is added", func(dir string) error { return os.Mkdir(filepath.Join(dir, "more"), 0o755) }, false},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			fs := files()
			fs["services/api/internal/x.go"] = ""
			ws, r := fixture(t, fixtureYAML, fs)
			// Out of the racy window: a directory changed within it
			// vouches for nothing (fsx.Identity.Racy).
			time.Sleep(150 * time.Millisecond)
			l, err := r.ListPart(ws.Project("api"))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(l.Files, "internal/x.go") || !l.Holds() {
				t.Fatalf("a fresh listing %v does not hold", l.Files)
			}
			if err := c.change(filepath.Join(ws.Root, "services", "api")); err != nil {
				t.Fatal(err)
			}
			if l.Holds() != c.holds {
				t.Errorf("after the change Holds() = %v, want %v", !c.holds, c.holds)
			}
		})
	}
}
