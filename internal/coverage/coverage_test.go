package coverage

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAGoProfileMapsImportPathsToWorkspaceLines(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "libs/mathx"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "libs/mathx/go.mod"), []byte("module example.com/mathx\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mod, ok := FindModule(root, "libs/mathx")
	if !ok || mod != (Module{Path: "example.com/mathx", Dir: "libs/mathx"}) {
		t.Fatalf("module = %+v, %v", mod, ok)
	}
	profile := "mode: set\n" +
		"example.com/mathx/add.go:3.24,5.2 1 1\n" + // lines 3-5 ran
		"example.com/mathx/add.go:7.24,8.10 1 0\n" + // lines 7-8 did not
		"example.com/mathx/add.go:8.10,9.2 1 1\n" + // line 8 shares a block that did not run: uncovered
		"example.com/other/x.go:1.1,2.2 1 1\n" // another module: skipped
	got, err := Read(strings.NewReader(profile), Source{Root: root, ProjectDir: "libs/mathx", Module: mod})
	if err != nil {
		t.Fatal(err)
	}
	want := Lines{"libs/mathx/add.go": {3: true, 4: true, 5: true, 7: false, 8: false, 9: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines = %v, want %v", got, want)
	}
}

func TestAnLcovFileMapsRelativeAndAbsolutePaths(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "web/src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "web/src/app.ts"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lcov := "TN:\nSF:src/app.ts\nFN:1,f\nDA:1,3\nDA:2,0\nend_of_record\n" +
		"SF:" + filepath.Join(root, "web/src/util.ts") + "\nDA:5,1.0\nend_of_record\n" +
		"SF:/elsewhere/x.ts\nDA:1,1\nend_of_record\n"
	got, err := Read(strings.NewReader(lcov), Source{Root: root, ProjectDir: "web"})
	if err != nil {
		t.Fatal(err)
	}
	want := Lines{"web/src/app.ts": {1: true, 2: false}, "web/src/util.ts": {5: true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines = %v, want %v", got, want)
	}
}

func TestWhatIsNotCoverageIsRefusedWithAReason(t *testing.T) {
	for name, in := range map[string]string{
		"an unknown format":     "hello\n",
		"a broken Go record":    "mode: set\nx.go:1.1 1\n",
		"a Go range backwards":  "mode: set\nm/x.go:5.1,2.1 1 1\n",
		"a negative lcov count": "SF:a\nDA:1,-1\n",
		"an lcov line before 1": "SF:a\nDA:0,1\n",
		"a line over the limit": "mode: set\n" + strings.Repeat("x", MaxLineSize+1) + "\n",
	} {
		if _, err := Read(strings.NewReader(in), Source{Root: "/r", Module: Module{Path: "m", Dir: "."}}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if got, err := Read(strings.NewReader(""), Source{}); err != nil || len(got) != 0 {
		t.Errorf("an empty file: %v, %v", got, err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add("mode: set\nm/a.go:1.1,3.2 1 1\n")
	f.Add("TN:\nSF:a.ts\nDA:1,1\nend_of_record\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Read(strings.NewReader(in), Source{Root: "/r", ProjectDir: "p", Module: Module{Path: "m", Dir: "p"}})
		if err != nil {
			return
		}
		for file, lines := range got {
			if file == "" || strings.HasPrefix(file, "../") || strings.HasPrefix(file, "/") {
				t.Fatalf("a path outside the workspace: %q", file)
			}
			for l := range lines {
				if l < 1 {
					t.Fatalf("line %d", l)
				}
			}
		}
	})
}
