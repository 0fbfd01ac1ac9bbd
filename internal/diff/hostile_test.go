package diff

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheDiffRoutesRunNoProgramTheRepositoryNames reads the change the
// way GET /api/v1/diff, /diff/patch and /diff/branches do, in a repository
// whose configuration names a program for everything git can run one for
// (core.fsmonitor, clean, smudge and process filters, a merge driver,
// textconv, diff.external, a diff driver's command, the pager, hooks,
// gpg): none of them may run.
func TestTheDiffRoutesRunNoProgramTheRepositoryNames(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "one\ntwo\nthree\n")
	r.write("b.dot", "dot\n")
	r.write("c.eq", "eq\n")
	r.commit("base")
	r.git("checkout", "-q", "-b", "other")
	r.write("a.txt", "one\nTWO (other)\nthree\n")
	r.commit("other")
	r.git("checkout", "-q", "main")
	r.write("a.txt", "one\nTWO (main)\nthree\n")
	r.commit("main")
	marker := r.ArmPrograms()
	// Same sizes, new content: git must read each file (through a clean
	// filter, were one run) to see the change.
	for _, p := range []string{"a.txt", "b.dot", "c.eq"} {
		data, err := os.ReadFile(filepath.Join(r.dir, p))
		if err != nil {
			t.Fatal(err)
		}
		r.write(p, strings.ToUpper(string(data)))
	}
	r.write("new.txt", "untracked\n")

	ctx := context.Background()
	for _, c := range []struct {
		route string
		read  func() error
	}{
		{"GET /api/v1/diff (the change)", func() error {
			ch, err := Read(ctx, r.dir, "")
			if err == nil && len(ch.Files) != 4 {
				t.Errorf("the change has %d files, want 4: %+v", len(ch.Files), ch.Files)
			}
			return err
		}},
		{"GET /api/v1/diff (its ETag)", func() error { _, err := Stamp(ctx, r.dir, ""); return err }},
		{"GET /api/v1/diff (against a base)", func() error { _, err := Read(ctx, r.dir, "other"); return err }},
		{"GET /api/v1/diff/patch", func() error { return WritePatch(ctx, io.Discard, r.dir, "") }},
		{"GET /api/v1/diff/branches", func() error {
			_, err := OtherBranches(ctx, r.dir, []string{"a.txt"})
			return err
		}},
	} {
		if err := c.read(); err != nil {
			t.Errorf("%s: %v", c.route, err)
		}
		if ran, _ := os.ReadFile(marker); len(ran) > 0 {
			t.Errorf("%s ran the repository's programs: %q", c.route, strings.Fields(string(ran)))
			_ = os.Remove(marker)
		}
	}
}
