package e2e

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/corehq/core/internal/demorepo"
)

// The README's first command runs core on a working copy of the demo with
// a history of its own: the Insight and Review views have something to
// show on the first run.
func TestDemoCopyGivesEveryViewContent(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "shop")
	if _, err := demorepo.Build(filepath.Join(moduleRoot, "testdata", "demo"), ws, time.Now(), false); err != nil {
		t.Fatal(err)
	}

	var rep struct {
		Hotspots struct {
			Files []struct {
				Path    string `json:"path"`
				Changes int    `json:"changes"`
			} `json:"files"`
		} `json:"hotspots"`
		Affinity struct {
			Files    []struct{ A, B string } `json:"files"`
			Projects []struct {
				A, B   string
				Hidden bool `json:"hidden"`
			} `json:"projects"`
		} `json:"affinity"`
		Ownership struct {
			Projects []struct {
				Owners []struct {
					Author string `json:"author"`
				} `json:"owners"`
				Quiet []struct {
					Author string `json:"author"`
				} `json:"quiet"`
			} `json:"projects"`
		} `json:"ownership"`
	}
	out := mustCore(t, ws, nil, "insight", "--json", "--limit", "100")
	if err := json.Unmarshal([]byte(out.Stdout), &rep); err != nil {
		t.Fatalf("insight --json: %v\n%s", err, out.Stdout)
	}

	t.Run("ownership has at least five authors and one gone quiet", func(t *testing.T) {
		authors, quiet := map[string]bool{}, 0
		for _, p := range rep.Ownership.Projects {
			for _, o := range p.Owners {
				authors[o.Author] = true
			}
			quiet += len(p.Quiet)
		}
		if len(authors) < 5 || quiet == 0 {
			t.Errorf("%d authors (%v), %d quiet", len(authors), authors, quiet)
		}
	})
	t.Run("a renamed file keeps its past", func(t *testing.T) {
		changes := map[string]int{}
		for _, f := range rep.Hotspots.Files {
			changes[f.Path] = f.Changes
		}
		// money.go was currency.go for its first commit: four changes in
		// all, the rename one of them.
		if changes["libs/util/money.go"] != 4 || changes["libs/util/currency.go"] != 0 {
			t.Errorf("changes: money.go %d, currency.go %d", changes["libs/util/money.go"], changes["libs/util/currency.go"])
		}
	})
	t.Run("files change together, and two projects are coupled without a dependency", func(t *testing.T) {
		pair := false
		for _, p := range rep.Affinity.Files {
			pair = pair || (p.A == "services/auth/token.go" && p.B == "web/src/api.ts")
		}
		hidden := false
		for _, p := range rep.Affinity.Projects {
			hidden = hidden || p.Hidden
		}
		if !pair || !hidden {
			t.Errorf("token.go + api.ts: %v; hidden coupling: %v (%+v)", pair, hidden, rep.Affinity)
		}
	})
	t.Run("the working copy has a change to review", func(t *testing.T) {
		var d struct {
			Files []struct {
				Path string `json:"path"`
			} `json:"files"`
		}
		out := mustCore(t, ws, nil, "diff", "--json")
		if err := json.Unmarshal([]byte(out.Stdout), &d); err != nil {
			t.Fatal(err)
		}
		if len(d.Files) == 0 {
			t.Errorf("no changed file: %s", out.Stdout)
		}
	})
}
