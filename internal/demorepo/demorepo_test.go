package demorepo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	src := filepath.Join("..", "..", "testdata", "demo")
	dst := filepath.Join(t.TempDir(), "shop")
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	built, err := Build(src, dst, now, false)
	if err != nil || !built {
		t.Fatalf("Build: %v, %v", built, err)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", dst}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	t.Run("the history is the one written, at dates counted back from now", func(t *testing.T) {
		dates := strings.Fields(git("log", "--format=%as"))
		if len(dates) != len(history) || dates[0] != "2026-05-31" || dates[len(dates)-1] != "2026-01-02" {
			t.Errorf("%d commits, newest %s, oldest %s", len(dates), dates[0], dates[len(dates)-1])
		}
	})
	t.Run("only the review's change differs from testdata/demo", func(t *testing.T) {
		var changed []string
		for _, l := range strings.Split(strings.TrimSpace(git("status", "--porcelain")), "\n") {
			changed = append(changed, strings.TrimSpace(l)[2:])
		}
		if len(changed) != len(change) {
			t.Errorf("changed: %v", changed)
		}
		for _, p := range changed {
			if change[strings.TrimSpace(p)] == nil {
				t.Errorf("%s changed, not part of the review's change", p)
			}
		}
	})
	t.Run("the change to review builds", func(t *testing.T) {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("no go")
		}
		c := exec.Command("go", "vet", "./libs/util/")
		c.Dir = dst
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("go vet ./libs/util/ in the copy: %v\n%s", err, out)
		}
	})
	t.Run("a copy of the same source is kept", func(t *testing.T) {
		mark := filepath.Join(dst, "kept")
		if err := os.WriteFile(mark, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if built, err := Build(src, dst, now, false); err != nil || built {
			t.Fatalf("Build again: %v, %v", built, err)
		}
		if _, err := os.Stat(mark); err != nil {
			t.Error("the copy was replaced")
		}
	})
	t.Run("-fresh builds it again", func(t *testing.T) {
		if built, err := Build(src, dst, now, true); err != nil || !built {
			t.Fatalf("Build fresh: %v, %v", built, err)
		}
		if _, err := os.Stat(filepath.Join(dst, "kept")); err == nil {
			t.Error("the copy was kept")
		}
	})
}
