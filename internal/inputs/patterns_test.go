package inputs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/corehq/core/internal/ignore"
)

// TestThePatternCacheAnswersAsAtDoes: built a level at a time from what it
// kept, the cache gives every directory the patterns and the verdict that
// ignore.Rule.At reads from the root down, asked in any order.
func TestThePatternCacheAnswersAsAtDoes(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{
		".gitignore":                "dist/\n*.log\n",
		"packages/.gitignore":       "tmp/\n!keep.log\n",
		"packages/a/.gitignore":     "gen/\n",
		"packages/a/src/x.go":       "",
		"packages/a/gen/y.go":       "",
		"packages/b/dist/z.js":      "",
		"packages/b/tmp/w/v.txt":    "",
		"packages/node_modules/m/x": "",
		"apps/web/src/main.ts":      "",
		".core/index/files.bin":     "",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rule := ignore.New(root, "")
	dirs := []string{"packages/b/tmp/w", "packages/a/src", ".", "packages", "packages/a/gen", "packages/a",
		"packages/b/dist", "packages/node_modules/m", "apps/web/src", "apps", ".core/index", "packages/b"}
	var c patternCache
	for _, d := range dirs {
		gotP, gotSkipped := c.at(rule, d)
		wantP, wantSkipped := rule.At(d)
		if gotSkipped != wantSkipped || !reflect.DeepEqual(gotP, wantP) {
			t.Errorf("%s: skipped %v, want %v; patterns differ: %v", d, gotSkipped, wantSkipped, !reflect.DeepEqual(gotP, wantP))
		}
	}
}
