package e2e

// The diff family against the real binary: GET /api/v1/diff (annotated,
// with its ETag), /diff/patch, /diff/context, and the review session of
// POST /api/v1/diff/session, stamped with the caller and read back after a
// restart; `core diff` prints the same bytes.

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// diffPage is the part of GET /api/v1/diff the tests read.
type diffPage struct {
	Base struct {
		Ref    string `json:"ref"`
		Commit string `json:"commit"`
		Branch string `json:"branch"`
	} `json:"base"`
	Files []struct {
		Path    string `json:"path"`
		Kind    string `json:"kind"`
		Project string `json:"project"`
		Role    string `json:"role"`
		Hash    string `json:"hash"`
		Hunks   []struct {
			NewStart int `json:"new_start"`
			NewLines int `json:"new_lines"`
		} `json:"hunks"`
		Symbols []struct {
			ID       string   `json:"id"`
			Name     string   `json:"name"`
			Files    []string `json:"files"`
			Projects []string `json:"projects"`
		} `json:"symbols"`
		Coverage struct {
			Unknown []int `json:"unknown"`
		} `json:"coverage"`
	} `json:"files"`
	Affected struct {
		Targets []struct {
			ID    string   `json:"id"`
			Chain []string `json:"chain"`
		} `json:"targets"`
	} `json:"affected"`
	Session session `json:"session"`
}

type session struct {
	Branch  string `json:"branch"`
	Version int    `json:"version"`
	Viewed  []struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	} `json:"viewed"`
	Comments []struct {
		ID     string `json:"id"`
		Path   string `json:"path"`
		Line   int    `json:"line"`
		Body   string `json:"body"`
		Author struct {
			Kind string `json:"kind"`
			ID   string `json:"id"`
		} `json:"author"`
		Outdated bool `json:"outdated"`
	} `json:"comments"`
}

func decodePage(t *testing.T, r response) diffPage {
	t.Helper()
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/v1/diff: %s", r)
	}
	var p diffPage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("decode the diff page: %v\n%s", err, r)
	}
	return p
}

// changedDemo is the demo under git with a change: Slugify's body edited,
// a new file in auth, and a doc edited.
func changedDemo(t *testing.T) string {
	t.Helper()
	ws := copyDemo(t)
	wsGitInit(t, ws)
	if err := os.MkdirAll(filepath.Join(ws, ".core"), 0o700); err != nil {
		t.Fatal(err)
	}
	slug := filepath.Join(ws, "libs/util/slug.go")
	data, err := os.ReadFile(slug)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), "strings.ToLower(", "strings.ToLower( /* reviewed */ ", 1)
	if edited == string(data) {
		t.Fatal("slug.go has no strings.ToLower( to edit")
	}
	writeFileAtomic(t, ws, filepath.Join(ws, "libs/util/slug.go"), []byte(edited))
	writeFileAtomic(t, ws, filepath.Join(ws, "services/auth/extra.go"), []byte("package auth\n\n// Extra is new.\nfunc Extra() {}\n"))
	writeFileAtomic(t, ws, filepath.Join(ws, "libs/util/README.md"), []byte("# util\n\nEdited.\n"))
	return ws
}

func TestDiffRoutes(t *testing.T) {
	ws := changedDemo(t)
	s := startServer(t, ws)
	_, tok := createToken(t, ws)
	_, readOnly := createToken(t, ws, "--grant", "console=read")

	r := get(t, s.URL+"/api/v1/diff", tok)
	page := decodePage(t, r)
	files := map[string]int{}
	for i, f := range page.Files {
		files[f.Path] = i
	}
	for _, p := range []string{"libs/util/slug.go", "services/auth/extra.go", "libs/util/README.md"} {
		if _, ok := files[p]; !ok {
			t.Fatalf("%s is not in the diff: %s", p, r)
		}
	}
	slug := page.Files[files["libs/util/slug.go"]]
	if slug.Kind != "modified" || slug.Project != "util" || slug.Role != "source" || slug.Hash == "" || len(slug.Hunks) != 1 {
		t.Errorf("slug.go = %+v", slug)
	}
	if len(slug.Symbols) == 0 || slug.Symbols[0].Name != "Slugify" || !slices.Contains(slug.Symbols[0].Files, "services/auth/token.go") || !slices.Contains(slug.Symbols[0].Projects, "auth") {
		t.Errorf("Slugify's reach = %+v", slug.Symbols)
	}
	if page.Files[0].Path != "libs/util/slug.go" {
		t.Errorf("the widest change is not read first: %s first", page.Files[0].Path)
	}
	if extra := page.Files[files["services/auth/extra.go"]]; extra.Kind != "added" || extra.Role != "source" {
		t.Errorf("extra.go = %+v", extra)
	}
	if doc := page.Files[files["libs/util/README.md"]]; doc.Role != "doc" {
		t.Errorf("README.md role = %q", doc.Role)
	}
	chains := map[string][]string{}
	for _, a := range page.Affected.Targets {
		chains[a.ID] = a.Chain
	}
	if c, want := chains["target:api:build"], []string{"api:build", "depends on util:build", "input libs/util/slug.go changed"}; !slices.Equal(c, want) {
		t.Errorf("api:build's chain = %q, want %q", c, want)
	}
	if page.Session.Branch != "main" || page.Session.Version != 0 {
		t.Errorf("session = %+v", page.Session)
	}

	t.Run("a repeat with nothing changed is 304; an edit changes the ETag", func(t *testing.T) {
		etag := settledETag(t, s.URL+"/api/v1/diff", tok)
		if r := get(t, s.URL+"/api/v1/diff", tok, "If-None-Match", etag); r.Status != http.StatusNotModified {
			t.Errorf("repeat: %s", r)
		}
		writeFileAtomic(t, ws, filepath.Join(ws, "services/auth/extra.go"), []byte("package auth\n\n// Extra is newer.\nfunc Extra() {}\n"))
		if r := get(t, s.URL+"/api/v1/diff", tok, "If-None-Match", etag); r.Status != http.StatusOK || r.Header.Get("ETag") == etag {
			t.Errorf("after an edit: %d, ETag %q", r.Status, r.Header.Get("ETag"))
		}
	})

	t.Run("the patch is git's, streamed", func(t *testing.T) {
		r := get(t, s.URL+"/api/v1/diff/patch", tok)
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/x-diff") {
			t.Fatalf("patch: %s", r)
		}
		body := string(r.Body)
		for _, want := range []string{"diff --git a/libs/util/slug.go b/libs/util/slug.go", "new file mode 100644", "+++ b/services/auth/extra.go", "/* reviewed */"} {
			if !strings.Contains(body, want) {
				t.Errorf("the patch lacks %q", want)
			}
		}
		etag := settledETag(t, s.URL+"/api/v1/diff/patch", tok)
		if r2 := get(t, s.URL+"/api/v1/diff/patch", tok, "If-None-Match", etag); r2.Status != http.StatusNotModified {
			t.Errorf("patch repeat: %d (ETag %q)", r2.Status, etag)
		}
	})

	t.Run("context of a changed symbol: definition and callers, bounded", func(t *testing.T) {
		r := get(t, s.URL+"/api/v1/diff/context?symbol=symbol:libs/util/slug.go%23Slugify", tok)
		if r.Status != http.StatusOK {
			t.Fatalf("context: %s", r)
		}
		var c struct {
			Definition struct {
				Path  string   `json:"path"`
				Lines []string `json:"lines"`
			} `json:"definition"`
			Callers []struct {
				Path string `json:"path"`
			} `json:"callers"`
			CallersCap int `json:"callers_cap"`
		}
		if err := json.Unmarshal(r.Body, &c); err != nil {
			t.Fatal(err)
		}
		if c.Definition.Path != "libs/util/slug.go" || !strings.Contains(strings.Join(c.Definition.Lines, "\n"), "func Slugify") || c.CallersCap == 0 {
			t.Errorf("context = %s", r.Body)
		}
		if !slices.ContainsFunc(c.Callers, func(x struct {
			Path string `json:"path"`
		}) bool {
			return x.Path == "services/auth/token.go"
		}) {
			t.Errorf("callers lack services/auth/token.go: %s", r.Body)
		}
		wantAPIError(t, get(t, s.URL+"/api/v1/diff/context?symbol=Slugify", tok), 400, "invalid_argument")
		wantAPIError(t, get(t, s.URL+"/api/v1/diff/context?symbol=symbol:libs/util/slug.go%23Nope", tok), 404, "not_found")
		wantAPIError(t, get(t, s.URL+"/api/v1/diff/context?symbol=symbol:../../etc/passwd%23x", tok), 400, "invalid_argument")
		wantAPIError(t, get(t, s.URL+"/api/v1/diff/context", tok), 400, "invalid_argument")
	})

	t.Run("bad input is a clear answer", func(t *testing.T) {
		msg := wantAPIError(t, get(t, s.URL+"/api/v1/diff?base=no-such-ref", tok), 400, "invalid_argument")
		if !strings.Contains(msg, `"no-such-ref"`) {
			t.Errorf("the message does not name the base: %q", msg)
		}
		wantAPIError(t, get(t, s.URL+"/api/v1/diff?colour=red", tok), 400, "invalid_argument")
		wantAPIError(t, get(t, s.URL+"/api/v1/diff/patch?base=no-such-ref", tok), 400, "invalid_argument")
	})

	t.Run("other branches changing the same files, and whether they conflict", func(t *testing.T) {
		wsGit(t, ws, "branch", "rival", "HEAD")
		wsGit(t, ws, "worktree", "add", "-q", filepath.Join(t.TempDir(), "rival"), "rival")
		rival := strings.TrimSpace(wsGit(t, ws, "worktree", "list", "--porcelain"))
		dir := ""
		for _, l := range strings.Split(rival, "\n") {
			if p, ok := strings.CutPrefix(l, "worktree "); ok && strings.HasSuffix(p, "/rival") {
				dir = p
			}
		}
		data, _ := os.ReadFile(filepath.Join(dir, "libs/util/slug.go"))
		if err := os.WriteFile(filepath.Join(dir, "libs/util/slug.go"), []byte(strings.Replace(string(data), "strings.ToLower(", "strings.ToUpper(", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		wsGit(t, dir, "commit", "-q", "-am", "rival edit")
		r := get(t, s.URL+"/api/v1/diff/branches", tok)
		if r.Status != http.StatusOK {
			t.Fatalf("branches: %s", r)
		}
		var b struct {
			Current  string `json:"current"`
			Branches []struct {
				Name          string   `json:"name"`
				Overlap       []string `json:"overlap"`
				Conflicts     bool     `json:"conflicts"`
				ConflictFiles []string `json:"conflict_files"`
			} `json:"branches"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Current != "main" || len(b.Branches) != 1 || b.Branches[0].Name != "rival" || !b.Branches[0].Conflicts ||
			!slices.Equal(b.Branches[0].Overlap, []string{"libs/util/slug.go"}) {
			t.Errorf("branches = %s", r.Body)
		}
		wantAPIError(t, get(t, s.URL+"/api/v1/diff/branches?base=main", tok), 400, "invalid_argument")
	})

	post := func(token, body string, headers ...string) response {
		return do(t, newRequest(t, http.MethodPost, s.URL+"/api/v1/diff/session", token, strings.NewReader(body), append([]string{"Content-Type", "application/json"}, headers...)...))
	}
	t.Run("the review session: stamped by the route, versioned, read back after a restart", func(t *testing.T) {
		r := post(tok, `{"version":0,"op":"comment","path":"libs/util/slug.go","line":`+strconv.Itoa(slug.Hunks[0].NewStart)+`,"text":"x","body":"why a comment here?"}`)
		if r.Status != http.StatusOK || r.Header.Get("ETag") != `"1"` {
			t.Fatalf("comment: %s", r)
		}
		var sess session
		if err := json.Unmarshal(r.Body, &sess); err != nil {
			t.Fatal(err)
		}
		if len(sess.Comments) != 1 || sess.Comments[0].Author.Kind != "console" || sess.Comments[0].Author.ID == "" {
			t.Errorf("the comment is not stamped with the caller: %s", r.Body)
		}
		wantAPIError(t, post(tok, `{"version":0,"op":"cursor","path":"a","line":1}`), 409, "conflict")
		msg := wantAPIError(t, post(tok, `{"version":1,"op":"comment","path":"a","line":1,"text":"","body":"x","author":{"kind":"admin","id":"root"}}`), 400, "invalid_argument")
		if !strings.Contains(msg, "authorship") {
			t.Errorf("an author in the payload: %q", msg)
		}
		wantAPIError(t, post(readOnly, `{"version":1,"op":"cursor","path":"a","line":1}`), 403, "permission_denied")
		wantAPIError(t, post(tok, `{"version":1,"op":"comment","path":"a","line":1,"text":"","body":"`+strings.Repeat("x", 9000)+`"}`), 400, "invalid_argument")
		wantAPIError(t, post(tok, `{"version":1,"op":"cursor","path":"../x","line":1}`), 400, "invalid_argument")
		if r := post(tok, `{"op":"view","path":"libs/util/slug.go","hash":"`+slug.Hash+`"}`, "If-Match", `"1"`); r.Status != http.StatusOK {
			t.Fatalf("view: %s", r)
		}

		s.Stop()
		s2 := startServer(t, ws)
		p := decodePage(t, get(t, s2.URL+"/api/v1/diff", tok))
		if p.Session.Version != 2 || len(p.Session.Comments) != 1 || p.Session.Comments[0].Body != "why a comment here?" {
			t.Errorf("after a restart: %+v", p.Session)
		}
		if len(p.Session.Viewed) != 1 || p.Session.Viewed[0].Path != "libs/util/slug.go" {
			t.Errorf("the viewed mark is gone: %+v", p.Session.Viewed)
		}
		// Editing the file again drops its viewed mark.
		data, _ := os.ReadFile(filepath.Join(ws, "libs/util/slug.go"))
		writeFileAtomic(t, ws, filepath.Join(ws, "libs/util/slug.go"), append(data, []byte("\n// more\n")...))
		if p := decodePage(t, get(t, s2.URL+"/api/v1/diff", tok)); len(p.Session.Viewed) != 0 {
			t.Errorf("a viewed mark outlived an edit: %+v", p.Session.Viewed)
		}
	})

	t.Run("core diff --json prints the route's bytes", func(t *testing.T) {
		res := mustCore(t, ws, nil, "diff", "--json")
		var fromCLI diffPage
		if err := json.Unmarshal([]byte(res.Stdout), &fromCLI); err != nil {
			t.Fatalf("core diff --json: %v\n%s", err, res)
		}
		if len(fromCLI.Files) != len(page.Files) || fromCLI.Session.Version != 2 {
			t.Errorf("core diff --json: %d files, session %d", len(fromCLI.Files), fromCLI.Session.Version)
		}
		text := mustCore(t, ws, nil, "diff").Stdout
		for _, want := range []string{"libs/util/slug.go", "Slugify", "auth:build"} {
			if !strings.Contains(text, want) {
				t.Errorf("core diff lacks %q:\n%s", want, text)
			}
		}
		patch := mustCore(t, ws, nil, "diff", "--patch").Stdout
		if !strings.Contains(patch, "diff --git a/libs/util/slug.go") {
			t.Errorf("core diff --patch:\n%s", patch)
		}
	})
}

// settledETag asks url until its answer carries an ETag: an answer read
// while a file of the change was being written has none (the server cannot
// tell which content it read), and the tests write files just before.
func settledETag(t *testing.T, url, tok string) string {
	t.Helper()
	for range 100 {
		r := get(t, url, tok)
		if r.Status != http.StatusOK {
			t.Fatalf("GET %s: %s", url, r)
		}
		if etag := r.Header.Get("ETag"); etag != "" {
			return etag
		}
	}
	t.Fatalf("GET %s never carried an ETag", url)
	return ""
}

func TestDiffOutsideGitIsAConflictThatSaysSo(t *testing.T) {
	ws := copyDemo(t)
	s := startServer(t, ws, "GIT_CEILING_DIRECTORIES="+filepath.Dir(ws))
	_, tok := createToken(t, ws)
	msg := wantAPIError(t, get(t, s.URL+"/api/v1/diff", tok), 409, "failed_precondition")
	if !strings.Contains(msg, "not inside a git repository") {
		t.Errorf("message = %q", msg)
	}
	wantAPIError(t, get(t, s.URL+"/api/v1/diff/patch", tok), 409, "failed_precondition")
}
