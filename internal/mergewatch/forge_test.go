package mergewatch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// stubForge answers MergedHeads from a map of branch -> merged heads.
type stubForge struct {
	mu     sync.Mutex
	merged map[string][]string
	absent bool  // no forge configured
	err    error // a configured forge that cannot answer
	asked  []string
}

func (f *stubForge) MergedHeads(_ context.Context, branch string) ([]string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.absent {
		return nil, false, nil
	}
	f.asked = append(f.asked, branch)
	if f.err != nil {
		return nil, true, f.err
	}
	return f.merged[branch], true, nil
}

// squashed tracks a branch with one commit of its own, then squash-merges
// it into main: git's ancestry does not see the merge.
func squashed(t *testing.T, branch string) (repo, head, state string) {
	t.Helper()
	repo = newRepo(t)
	state = filepath.Join(t.TempDir(), "review.json")
	g(t, repo, "checkout", "-q", "-b", branch)
	head = commit(t, repo, "squashed.txt", branch+"\n")
	if err := Observe(context.Background(), repo, state); err != nil {
		t.Fatal(err)
	}
	g(t, repo, "checkout", "-q", "main")
	g(t, repo, "merge", "-q", "--squash", branch)
	g(t, repo, "commit", "-q", "-m", "squash "+branch)
	return repo, head, state
}

func TestCheckAsksTheForge(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	cases := []struct {
		name   string
		forge  func(head, later string) *stubForge
		merged bool
		report string // in Report's message
	}{
		{"a pull request merged with the recorded head is a merge", func(head, _ string) *stubForge {
			return &stubForge{merged: map[string][]string{"feature/s": {head}}}
		}, true, "feature/s merged into main on the forge"},
		{"a pull request merged with commits after the recorded head is a merge", func(_, later string) *stubForge {
			return &stubForge{merged: map[string][]string{"feature/s": {later}}}
		}, true, "on the forge"},
		{"a pull request merged with other commits is not", func(string, string) *stubForge {
			return &stubForge{merged: map[string][]string{"feature/s": {"0123456789abcdef0123456789abcdef01234567"}}}
		}, false, "no review merged (1 branches watched)"},
		{"no forge configured leaves it to git", func(string, string) *stubForge {
			return &stubForge{absent: true}
		}, false, "no review merged (1 branches watched)"},
		{"a forge that cannot answer is said, not fatal", func(string, string) *stubForge {
			return &stubForge{err: errors.New("GitHub's API rate limit for this token is used up")}
		}, false, "; forge: GitHub's API rate limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			repo, head, state := squashed(t, "feature/s")
			// A later commit on the branch, pushed and merged on the forge
			// but never seen here as the branch's head.
			g(t, repo, "checkout", "-q", "feature/s")
			later := commit(t, repo, "later.txt", "later\n")
			g(t, repo, "reset", "-q", "--hard", head)
			g(t, repo, "checkout", "-q", "main")
			f := tc.forge(head, later)
			msg, err := Report(ctx, repo, state, f)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(msg, "merged into"); got != tc.merged || !strings.Contains(msg, tc.report) {
				t.Errorf("report %q; want merged=%v and %q", msg, tc.merged, tc.report)
			}
		})
	}
}

func TestTheForgeIsAskedAboutTheMostRecentBranchesOnly(t *testing.T) {
	isolateGit(t)
	ctx := context.Background()
	repo := newRepo(t)
	state := filepath.Join(t.TempDir(), "review.json")
	for i := 0; i < MaxForgeAsks+3; i++ {
		g(t, repo, "checkout", "-q", "-b", fmt.Sprintf("b%02d", i), "main")
		commit(t, repo, "f.txt", fmt.Sprintf("%d\n", i))
		if err := Observe(ctx, repo, state); err != nil {
			t.Fatal(err)
		}
	}
	// Order the branches by when they were seen, whatever the clock did.
	if err := update(state, func(s *stateFile) (bool, error) {
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for name, b := range s.Branches {
			var i int
			_, _ = fmt.Sscanf(name, "b%d", &i)
			b.LastSeen = base.Add(time.Duration(i) * time.Minute)
		}
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	f := &stubForge{}
	if _, err := Check(ctx, repo, state, f); err != nil {
		t.Fatal(err)
	}
	if len(f.asked) != MaxForgeAsks || f.asked[0] != fmt.Sprintf("b%02d", MaxForgeAsks+2) {
		t.Errorf("asked %d branches, first %v; want %d, the most recently seen first", len(f.asked), f.asked[:1], MaxForgeAsks)
	}
}
