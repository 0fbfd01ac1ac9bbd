package ignore

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNever(t *testing.T) {
	r := New("/ws", "/ws/build/cache")
	for rel, want := range map[string]bool{
		".git": true, ".git/HEAD": true, "a/node_modules/x": true, "node_modules": true,
		".core/tokens.json": true, ".core": true,
		"build/cache/x": true, "build/cache": true, "build/cachex": false,
		"docs/a.md": false, "targets.yaml": false, "a/.github/x": false, "a.git": false,
	} {
		if got := r.Never(rel); got != want {
			t.Errorf("Never(%q) = %v, want %v", rel, got, want)
		}
	}
	t.Run("a cache directory outside the workspace leaves only .core", func(t *testing.T) {
		r := New("/ws", "/elsewhere/cache")
		if r.Never("elsewhere") || !r.Never(".core/x") {
			t.Error("wrong rule for an outside cache")
		}
	})
	t.Run("NeverChild agrees with Never for one more segment", func(t *testing.T) {
		for _, c := range [][2]string{{"a/.git", ".git"}, {"a/node_modules", "node_modules"}, {"build/cache", "cache"}, {"a/b", "b"}} {
			if r.NeverChild(c[0], c[1]) != r.Never(c[0]) {
				t.Errorf("NeverChild(%q) != Never", c[0])
			}
		}
	})
}

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGitignore(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		".gitignore":          "dist/\n*.log\n",
		"sub/.gitignore":      "*.py\n!keep.py\n",
		"sub/deep/.gitignore": "gen/\n",
	})
	r := New(root, "")
	for _, c := range []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"dist", true, true},
		{"dist/app.js", false, true},
		{"a/dist", true, true},
		{"x.log", false, true},
		{"sub/y.log", false, true},
		{"sub/drop.py", false, true},
		{"sub/keep.py", false, false},
		{"drop.py", false, false}, // sub's .gitignore applies to sub alone
		{"sub/deep/gen", true, true},
		{"sub/gen", true, false},
		{"src/main.go", false, false},
		{".git/config", false, true},
	} {
		if got := r.Skipped(c.rel, c.isDir); got != c.want {
			t.Errorf("Skipped(%q, dir=%v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
	t.Run("At a directory a .gitignore above ignores says so", func(t *testing.T) {
		if _, skipped := r.At("dist/assets"); !skipped {
			t.Error("dist/assets is not skipped")
		}
		if _, skipped := r.At("node_modules/x"); !skipped {
			t.Error("node_modules/x is not skipped")
		}
	})
	t.Run("At gives the patterns in force in a directory, its own included", func(t *testing.T) {
		p, skipped := r.At("sub/deep")
		if skipped {
			t.Fatal("sub/deep is skipped")
		}
		m := p.Matcher()
		if !m.Match([]string{"sub", "deep", "gen"}, true) || !m.Match([]string{"sub", "deep", "z.py"}, false) || !m.Match([]string{"sub", "deep", "z.log"}, false) {
			t.Error("the patterns of the root, sub and sub/deep are not all in force")
		}
	})
}
