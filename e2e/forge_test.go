package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordedForge serves the recorded GitHub responses of
// internal/forge/testdata (their provenance is in its README) by the
// endpoint a request names, whatever its numbers.
func recordedForge(t *testing.T) *httptest.Server {
	t.Helper()
	load := func(name string) (int, []byte) {
		data, err := os.ReadFile(filepath.Join("..", "internal", "forge", "testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var f struct {
			Status int             `json:"status"`
			Body   json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		return f.Status, f.Body
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "not-found"
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/pulls"):
			name = "pulls-open"
		case strings.HasSuffix(p, "/reviews"):
			name = "reviews"
		case strings.Contains(p, "/pulls/") && strings.HasSuffix(p, "/comments"):
			name = "review-comments"
		case strings.Contains(p, "/issues/") && strings.HasSuffix(p, "/comments"):
			name = "issue-comments"
		case strings.HasSuffix(p, "/check-runs"):
			name = "check-runs"
		}
		status, body := load(name)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestDiffReviewAnswersFromTheForge(t *testing.T) {
	ws := copyDemo(t)
	wsGitInit(t, ws)
	wsGit(t, ws, "checkout", "-q", "-b", "ricardo-add-pr-create-comment-reply")
	wsGit(t, ws, "remote", "add", "origin", "https://github.com/rsn491/PyGithub.git")
	forge := recordedForge(t)
	s := startServer(t, ws, "CORE_FORGE_API_URL="+forge.URL+"/", "CORE_FORGE_TOKEN=ghp_e2eTOKENe2eTOKENe2eTOKENe2eTOKEN0000")
	_, tok := createToken(t, ws)

	r := get(t, s.URL+"/api/v1/diff/review", tok)
	if r.Status != http.StatusOK {
		t.Fatalf("diff/review: %s", r)
	}
	var rev struct {
		State       string `json:"state"`
		PullRequest *struct {
			Number int `json:"number"`
		} `json:"pull_request"`
		Reviews  []any `json:"reviews"`
		Comments []any `json:"comments"`
	}
	if err := json.Unmarshal(r.Body, &rev); err != nil {
		t.Fatal(err)
	}
	if rev.State != "ok" || rev.PullRequest == nil || rev.PullRequest.Number == 0 || len(rev.Comments) == 0 {
		t.Errorf("review = %s", r.Body)
	}
	if strings.Contains(string(r.Body), "e2eTOKEN") || strings.Contains(s.logs(), "e2eTOKEN") {
		t.Error("the forge token reached the answer or the log")
	}

	t.Run("without a remote the answer says so, never a 5xx", func(t *testing.T) {
		wsGit(t, ws, "remote", "remove", "origin")
		r := get(t, s.URL+"/api/v1/diff/review", tok)
		if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"no_remote"`) {
			t.Errorf("no remote: %s", r)
		}
	})
}
