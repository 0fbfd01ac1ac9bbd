package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corehq/core/internal/auth"
	insightv1alpha1 "github.com/corehq/core/proto/gen/core/insight/v1alpha1"
	"github.com/corehq/core/proto/gen/core/insight/v1alpha1/insightv1alpha1connect"
)

// insightDemo is the demo under git with a little history: two authors,
// util and auth changed together three times (they have a dependency),
// billing and api changed together twice (so do they), a rename.
func insightDemo(t *testing.T) string {
	t.Helper()
	ws := copyDemo(t)
	wsGitInit(t, ws)
	if err := os.MkdirAll(filepath.Join(ws, ".core"), 0o700); err != nil {
		t.Fatal(err)
	}
	edit := func(path, line string) {
		p := filepath.Join(ws, path)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		writeFileAtomic(t, ws, p, append(data, []byte(line+"\n")...))
	}
	commit := func(author, msg string) {
		wsGit(t, ws, "add", "-A")
		wsGit(t, ws, "-c", "user.name="+author, "-c", "user.email="+strings.ToLower(author)+"@example.com", "commit", "-q", "-m", msg)
	}
	for i, author := range []string{"Ada", "Ada", "Bob"} {
		edit("libs/util/slug.go", "// util "+string(rune('a'+i)))
		edit("services/auth/token.go", "// auth "+string(rune('a'+i)))
		commit(author, "util and auth")
	}
	for _, author := range []string{"Bob", "Cy"} {
		edit("services/billing/invoice.go", "// billing")
		edit("services/api/main.go", "// api")
		commit(author, "billing and api")
	}
	return ws
}

type insightReport struct {
	Head    string
	Commits int
	Window  struct {
		Name    string
		Commits int
	}
	Hotspots struct {
		Files []struct {
			Path    string
			Changes int
			Score   int64
		}
	}
	Affinity struct {
		Projects []struct {
			A, B     string
			Together int
			Hidden   bool
		}
	}
	Ownership struct {
		Projects []struct {
			Project   string
			BusFactor int `json:"bus_factor"`
			Owners    []struct {
				Author string
				Share  float64
			}
		}
	}
	Trend struct {
		Weeks    []string
		Projects []struct {
			Project string
			Counts  []int
		}
	}
	Volatility *struct {
		MinSample int `json:"min_sample"`
	}
}

func TestInsightAnswersFromTheWholeHistory(t *testing.T) {
	ws := insightDemo(t)
	s := startServer(t, ws)
	_, tok := createToken(t, ws)

	read := func(query string) insightReport {
		t.Helper()
		r := get(t, s.URL+"/api/v1/insight"+query, tok)
		if r.Status != http.StatusOK {
			t.Fatalf("GET /api/v1/insight%s: %s", query, r)
		}
		var rep insightReport
		if err := json.Unmarshal(r.Body, &rep); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := read("")
	if rep.Commits != 6 || rep.Window.Name != "1y" || rep.Window.Commits != 6 {
		t.Fatalf("commits %d, window %+v", rep.Commits, rep.Window)
	}
	if len(rep.Hotspots.Files) == 0 || rep.Hotspots.Files[0].Changes < 3 {
		t.Errorf("hotspots %+v", rep.Hotspots.Files)
	}
	pairs := map[string]bool{}
	for _, p := range rep.Affinity.Projects {
		pairs[p.A+"+"+p.B] = p.Hidden
	}
	if hidden, ok := pairs["auth+util"]; !ok || hidden {
		t.Errorf("auth+util (a declared dependency) = %v %v in %+v", ok, hidden, rep.Affinity.Projects)
	}
	if rep.Volatility == nil || rep.Volatility.MinSample != 3 || len(rep.Trend.Weeks) != 12 {
		t.Errorf("volatility %+v, trend weeks %d", rep.Volatility, len(rep.Trend.Weeks))
	}

	t.Run("a new commit is counted", func(t *testing.T) {
		writeFileAtomic(t, ws, filepath.Join(ws, "libs/util/new.go"), []byte("package util\n"))
		wsGit(t, ws, "add", "-A")
		wsGit(t, ws, "-c", "user.name=Dee", "-c", "user.email=dee@example.com", "commit", "-q", "-m", "new")
		after := read("")
		if after.Commits != 7 || after.Head == rep.Head {
			t.Errorf("after a commit: %d commits, head %s (was %s)", after.Commits, after.Head, rep.Head)
		}
	})

	t.Run("the Connect service gives the same numbers", func(t *testing.T) {
		c := insightv1alpha1connect.NewInsightServiceClient(&http.Client{Transport: auth.Transport{Token: tok}}, s.URL)
		ctx := context.Background()
		rest := read("?lens=hotspots,ownership")
		hs, err := c.GetHotspots(ctx, &insightv1alpha1.GetHotspotsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if hs.GetSummary().GetCommits() != int32(rest.Commits) || len(hs.GetFiles()) != len(rest.Hotspots.Files) || hs.GetFiles()[0].GetScore() != rest.Hotspots.Files[0].Score {
			t.Errorf("GetHotspots %v differs from the route's %+v", hs, rest.Hotspots)
		}
		own, err := c.GetOwnership(ctx, &insightv1alpha1.GetOwnershipRequest{})
		if err != nil || len(own.GetProjects()) != len(rest.Ownership.Projects) {
			t.Fatalf("GetOwnership: %v %v", err, own)
		}
		if _, err := c.GetTrend(ctx, &insightv1alpha1.GetTrendRequest{Query: &insightv1alpha1.Query{Window: "forever"}}); err == nil || !strings.Contains(err.Error(), "window") {
			t.Errorf("a bad window over Connect: %v", err)
		}
	})

	t.Run("bad questions are 400s that say what is allowed", func(t *testing.T) {
		for _, q := range []string{"?window=forever", "?limit=0x", "?lens=hotness", "?project=nope", "?color=red", "?limit=9999", "?include=tests"} {
			r := get(t, s.URL+"/api/v1/insight"+q, tok)
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s: %s", q, r)
			}
		}
	})

	t.Run("core insight prints the same history", func(t *testing.T) {
		out := mustCore(t, ws, nil, "insight", "--json")
		var cli insightReport
		if err := json.Unmarshal([]byte(out.Stdout), &cli); err != nil || cli.Commits != 7 {
			t.Errorf("core insight --json: %v %d", err, cli.Commits)
		}
		text := mustCore(t, ws, nil, "insight", "ownership")
		if !strings.Contains(text.Stdout, "Ownership by project") || !strings.Contains(text.Stdout, "Ada") {
			t.Errorf("core insight ownership:\n%s", text.Stdout)
		}
	})
}

func TestInsightOutsideGitIsAConflictThatSaysSo(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, tok := createToken(t, ws)
	r := get(t, s.URL+"/api/v1/insight", tok)
	if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "git") {
		t.Errorf("outside git: %s", r)
	}
}
