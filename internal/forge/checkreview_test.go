package forge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corehq/core/internal/mergewatch"
)

// recordedHead is the head of the merged pull request in pulls-merged.json.
const recordedHead = "21a6dfef170b2bdcf33dda731ad3a3e9681cffbe"

// TestCheckReviewSeesASquashMergeOnTheForge: git's ancestry cannot see a
// squash merge; the forge's merged pull request can.
func TestCheckReviewSeesASquashMergeOnTheForge(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	setup := func(t *testing.T) (dir, head, state string) {
		dir = repo(t, "main", "git@github.com:PyGithub/PyGithub.git")
		g(t, dir, "checkout", "-q", "-b", "list_user_projects")
		g(t, dir, "commit", "-q", "--allow-empty", "-m", "list user projects")
		head = g(t, dir, "rev-parse", "HEAD")
		state = filepath.Join(t.TempDir(), "reviews.json")
		if err := mergewatch.Observe(ctx, dir, state); err != nil {
			t.Fatal(err)
		}
		g(t, dir, "checkout", "-q", "main")
		g(t, dir, "merge", "-q", "--squash", "list_user_projects")
		g(t, dir, "commit", "-q", "--allow-empty", "-m", "squashed")
		return dir, head, state
	}

	t.Run("without a forge the squash merge goes unseen", func(t *testing.T) {
		dir, _, state := setup(t)
		merged, err := mergewatch.Check(ctx, dir, state, nil)
		if err != nil || len(merged) != 0 {
			t.Errorf("merged %v, err %v", merged, err)
		}
	})
	t.Run("with the forge the merged pull request is reported once", func(t *testing.T) {
		dir, head, state := setup(t)
		srv := newForge(t, map[string]fixture{"/repos/PyGithub/PyGithub/pulls": load(t, "pulls-merged", recordedHead, head)})
		c := New(Config{APIURL: srv.URL + "/", Token: testToken, Getenv: env(nil)}, dir, srv.Client())
		msg, err := mergewatch.Report(ctx, dir, state, c)
		if err != nil || !strings.Contains(msg, "list_user_projects merged into main on the forge ("+head[:7]+")") {
			t.Errorf("report %q, err %v", msg, err)
		}
		msg, err = mergewatch.Report(ctx, dir, state, c)
		if err != nil || !strings.HasPrefix(msg, "no review merged") {
			t.Errorf("second report %q, err %v", msg, err)
		}
	})
	t.Run("a merged pull request of other commits is not this branch's merge", func(t *testing.T) {
		dir, _, state := setup(t)
		srv := newForge(t, map[string]fixture{"/repos/PyGithub/PyGithub/pulls": load(t, "pulls-merged")})
		c := New(Config{APIURL: srv.URL + "/", Token: testToken, Getenv: env(nil)}, dir, srv.Client())
		merged, err := mergewatch.Check(ctx, dir, state, c)
		if err != nil || len(merged) != 0 || len(srv.requests()) != 1 {
			t.Errorf("merged %v, err %v, %d requests", merged, err, len(srv.requests()))
		}
	})
	t.Run("a forge that refuses the token is said in the report, and the job goes on", func(t *testing.T) {
		dir, _, state := setup(t)
		srv := newForge(t, nil)
		srv.answerAll(load(t, "bad-credentials"))
		c := New(Config{APIURL: srv.URL + "/", Token: testToken, Getenv: env(nil)}, dir, srv.Client())
		msg, err := mergewatch.Report(ctx, dir, state, c)
		if err != nil || !strings.Contains(msg, "no review merged") || !strings.Contains(msg, "forge: GitHub refused the token") || strings.Contains(msg, testToken) {
			t.Errorf("report %q, err %v", msg, err)
		}
	})
}
