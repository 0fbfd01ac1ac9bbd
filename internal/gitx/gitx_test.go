package gitx

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/testbed"
)

func TestSubcommandSkipsGlobalOptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fact string
		args []string
		want int
	}{
		{"a bare subcommand is first", []string{"status", "-z"}, 0},
		{"a -c and its value are skipped", []string{"-c", "user.name=x", "-c", "a.b=c", "stash", "create"}, 4},
		{"a flag without a value is skipped", []string{"--literal-pathspecs", "add", "x"}, 1},
		{"-C takes a value that may look like a subcommand", []string{"-C", "diff", "log"}, 2},
		{"no subcommand is -1", []string{"--version"}, -1},
	} {
		t.Run(c.fact, func(t *testing.T) {
			if got := subcommand(c.args); got != c.want {
				t.Errorf("subcommand(%q) = %d, want %d", c.args, got, c.want)
			}
		})
	}
}

func TestEveryDriverFoundIsEmptied(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fact string
		out  string
		want []string
	}{
		{"no driver gives no option", "", nil},
		{"a filter's clean, smudge and process are emptied and it is not required",
			"filter.lfs.clean\ngit-lfs clean -- %f\x00filter.lfs.required\ntrue\x00",
			[]string{"-c", "filter.lfs.clean=", "-c", "filter.lfs.smudge=", "-c", "filter.lfs.process=", "-c", "filter.lfs.required=false"}},
		{"a merge driver is emptied",
			"merge.ours.driver\ntrue\x00",
			[]string{"-c", "merge.ours.driver="}},
		{"a name with dots is the whole subsection",
			"filter.a.b.c.smudge\nx\x00",
			[]string{"-c", "filter.a.b.c.clean=", "-c", "filter.a.b.c.smudge=", "-c", "filter.a.b.c.process=", "-c", "filter.a.b.c.required=false"}},
		{"a name with = goes through --config-env, which does not split at it",
			"filter.a=b.clean\nx\x00",
			[]string{"--config-env=filter.a=b.clean=" + emptyEnv, "--config-env=filter.a=b.smudge=" + emptyEnv, "--config-env=filter.a=b.process=" + emptyEnv, "--config-env=filter.a=b.required=" + falseEnv}},
	} {
		t.Run(c.fact, func(t *testing.T) {
			if got := driverOverrides([]byte(c.out)); !slices.Equal(got, c.want) {
				t.Errorf("driverOverrides(%q) = %q, want %q", c.out, got, c.want)
			}
		})
	}
}

// TestNoProgramTheRepositoryNamesRuns runs, through Command, each kind of
// git command core runs, in a repository whose configuration names a
// program for every hook git has; none may run.
func TestNoProgramTheRepositoryNamesRuns(t *testing.T) {
	r := testbed.NewGitRepo(t, "main")
	r.Write("a.txt", "one\ntwo\nthree\n")
	r.Write("b.dot", "dot\n")
	r.Write("c.eq", "eq\n")
	r.Commit("base")
	r.Git("checkout", "-q", "-b", "other")
	r.Write("a.txt", "one\nTWO (other)\nthree\n")
	r.Commit("other")
	r.Git("checkout", "-q", "main")
	r.Write("a.txt", "one\nTWO (main)\nthree\n")
	r.Commit("main")
	marker := r.ArmPrograms()
	// Same sizes, new times: git must read the content (a clean filter)
	// to tell whether they changed.
	for _, p := range []string{"a.txt", "b.dot", "c.eq"} {
		data, err := os.ReadFile(filepath.Join(r.Dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(r.Dir, p), []byte(strings.ToUpper(string(data))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.Write("new.txt", "untracked\n")
	wt := filepath.Join(t.TempDir(), "wt")
	index := filepath.Join(t.TempDir(), "index")

	ctx := context.Background()
	for _, c := range []struct {
		what string
		args []string
		env  []string
	}{
		{"status", []string{"status", "--porcelain=v2", "-z", "--untracked-files=all"}, nil},
		{"diff against HEAD, with a patch", []string{"diff", "-p", "HEAD", "--"}, nil},
		{"diff of the working tree", []string{"diff", "-p"}, nil},
		{"add to a private index", []string{"add", "--intent-to-add", "new.txt", "a.txt"}, []string{"GIT_INDEX_FILE=" + index}},
		{"diff through the private index", []string{"diff", "-p", "HEAD"}, []string{"GIT_INDEX_FILE=" + index}},
		{"stash create", []string{"-c", "user.name=core", "-c", "user.email=core@localhost", "stash", "create"}, nil},
		{"merge-tree", []string{"merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", "main", "other"}, nil},
		{"log with patches", []string{"log", "-p", "-M", "--format=%H %G?"}, nil},
		{"diff-tree", []string{"diff-tree", "-r", "-p", "--root", "HEAD"}, nil},
		{"show", []string{"show", "HEAD"}, nil},
		{"worktree add", []string{"worktree", "add", "--detach", "--quiet", wt, "HEAD"}, nil},
	} {
		cmd := Command(ctx, r.Dir, c.args...)
		cmd.Env = append(cmd.Env, c.env...)
		res, err := Exec(ctx, cmd)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		ran, _ := os.ReadFile(marker)
		if len(ran) > 0 {
			t.Errorf("%s (exit %d, %s) ran the repository's programs: %q", c.what, res.Exit, res.Stderr, strings.Fields(string(ran)))
			_ = os.Remove(marker)
		}
	}
}
