package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTheCLIWritesOnTheReviewSession: `core review` comments, resolves,
// reopens and marks viewed, with the server down (through the store) and
// up (through POST /api/v1/diff/session), stamped as the CLI both ways,
// and the console's GET /api/v1/diff shows what it wrote.
func TestTheCLIWritesOnTheReviewSession(t *testing.T) {
	ws := changedDemo(t)
	wsEnv := append([]string(nil), wsGitEnv...)
	page := func() diffPage {
		var p diffPage
		if err := json.Unmarshal([]byte(mustCore(t, ws, wsEnv, "diff", "--json").Stdout), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	slugLine := page().Files[0].Hunks[0].NewStart
	for _, f := range page().Files {
		if f.Path == "libs/util/slug.go" {
			slugLine = f.Hunks[0].NewStart
		}
	}
	at := "libs/util/slug.go:" + itoa(slugLine)

	t.Run("with the server down, through the store", func(t *testing.T) {
		r := mustCore(t, ws, wsEnv, "review", "comment", at, "why", "lower", "case?")
		if !strings.HasPrefix(r.Stdout, "commented c1 on "+at) {
			t.Fatalf("comment: %s", r)
		}
		mustCore(t, ws, wsEnv, "review", "resolve", "c1")
		mustCore(t, ws, wsEnv, "review", "viewed", "libs/util/slug.go")
		p := page()
		if len(p.Session.Comments) != 1 || p.Session.Comments[0].Body != "why lower case?" || p.Session.Comments[0].Author.Kind != "cli" {
			t.Errorf("the session: %+v", p.Session)
		}
		if len(p.Session.Viewed) != 1 || p.Session.Viewed[0].Path != "libs/util/slug.go" {
			t.Errorf("viewed: %+v", p.Session.Viewed)
		}
	})

	t.Run("with the server up, through the route, and the console reads it", func(t *testing.T) {
		s := startServer(t, ws, wsEnv...)
		_, tok := createToken(t, ws)
		mustCore(t, ws, wsEnv, "review", "reopen", "c1")
		r := mustCore(t, ws, wsEnv, "review", "comment", at, "and", "here")
		if !strings.HasPrefix(r.Stdout, "commented c2 on "+at) {
			t.Fatalf("comment: %s", r)
		}
		p := decodePage(t, get(t, s.URL+"/api/v1/diff", tok))
		if len(p.Session.Comments) != 2 {
			t.Fatalf("the console sees %+v", p.Session.Comments)
		}
		for _, c := range p.Session.Comments {
			if c.Author.Kind != "cli" || c.Author.ID == "" {
				t.Errorf("comment %s is stamped %+v, not as the CLI", c.ID, c.Author)
			}
		}
	})

	t.Run("no input names an author, and a bad line is refused with the form", func(t *testing.T) {
		if r := runCore(t, ws, wsEnv, "review", "comment", at, "x", "--author", "someone"); r.Code == 0 {
			t.Errorf("an --author was taken: %s", r)
		}
		if r := runCore(t, ws, wsEnv, "review", "comment", "libs/util/slug.go", "x"); r.Code == 0 || !strings.Contains(r.Stderr, "FILE:LINE") {
			t.Errorf("a comment without a line: %s", r)
		}
		if r := runCore(t, ws, wsEnv, "review", "viewed", "nope.go"); r.Code == 0 || !strings.Contains(r.Stderr, "not a file the change changes") {
			t.Errorf("viewed an unchanged file: %s", r)
		}
	})
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
