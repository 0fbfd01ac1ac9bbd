package server

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/config"
)

func (s *running) get(t *testing.T, path, token string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.BaseURL+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// TestSymbolShardsLoadOnlyForSymbolQueries is rule G3 through the server:
// the default graph and non-symbol queries read no @symbols shard.
func TestSymbolShardsLoadOnlyForSymbolQueries(t *testing.T) {
	s := startServer(t, nil)
	tok := s.Tokens.Mint(auth.KindAdmin, auth.ConsoleRead, time.Hour)
	loads := s.Workspace.Indexer().ShardLoads
	for _, p := range []string{"/api/v1/graph", "/api/v1/graph?flavor=targets", "/api/v1/graph?level=projects", "/api/v1/graph?select=" + url.QueryEscape("project:api depth:2"), "/api/v1/graph?select=kind:file"} {
		if code, body := s.get(t, p, tok); code != http.StatusOK {
			t.Fatalf("%s: %d %s", p, code, body)
		}
	}
	if n := loads(); n != 0 {
		t.Fatalf("non-symbol requests loaded %d shards", n)
	}
	code, body := s.get(t, "/api/v1/graph?select="+url.QueryEscape("symbol:Slug*"), tok)
	if code != http.StatusOK {
		t.Fatalf("symbol query: %d %s", code, body)
	}
	if loads() == 0 {
		t.Fatal("a symbol query loaded no shard")
	}
	var g struct {
		Nodes []struct{ ID, Kind, Name string }
	}
	if err := json.Unmarshal(body, &g); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, n := range g.Nodes {
		if n.Kind == "symbol" && strings.HasPrefix(n.Name, "Slug") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no Slug symbol in %s", body)
	}
}

func TestABadSelectIs400NamingTheTerm(t *testing.T) {
	s := startServer(t, nil)
	tok := s.Tokens.Mint(auth.KindAdmin, auth.ConsoleRead, time.Hour)
	for q, want := range map[string]string{
		"kinds:file":  `unknown term \"kinds:file\"`,
		"kind:widget": "is not a kind",
		"depth:x":     "depth",
		"path:[":      "path",
	} {
		code, body := s.get(t, "/api/v1/graph?select="+url.QueryEscape(q), tok)
		if code != http.StatusBadRequest || !strings.Contains(string(body), want) || !strings.Contains(string(body), `"invalid_argument"`) {
			t.Errorf("select=%s: %d %s", q, code, body)
		}
	}
}

func TestConsoleDirServesItsFilesAndNothingOutside(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>custom</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(c *config.Config) { c.Console.Dir = dir })
	for path, want := range map[string]int{"/console/graph/": 200, "/console/graph/escape.txt": 404, "/console/graph/../../etc/passwd": 404} {
		resp, err := http.Get(s.BaseURL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != want || strings.Contains(string(body), "outside") {
			t.Errorf("%s: %d %q, want %d", path, resp.StatusCode, body, want)
		}
		if want == 200 && (!strings.Contains(string(body), "custom") || resp.Header.Get("Content-Security-Policy") == "") {
			t.Errorf("%s: not the custom console with its policy: %q", path, body)
		}
	}
}

// TestConsoleFilesResolveAsTheSpecSays: CORE_CONSOLE_DIR, else the
// workspace's console/gen, else the embedded build.
func TestConsoleFilesResolveAsTheSpecSays(t *testing.T) {
	page := func(dir, title string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<title>"+title+"</title>"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	index := func(files fs.FS) string {
		t.Helper()
		b, err := fs.ReadFile(files, "index.html")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	ws, own := t.TempDir(), t.TempDir()
	page(own, "own")
	cfg := config.Defaults()

	t.Run("without either, the embedded build", func(t *testing.T) {
		_, from, err := consoleFiles(ws, &cfg)
		if err != nil || from != "embedded" {
			t.Fatalf("from %q, %v", from, err)
		}
	})
	t.Run("the workspace's console/gen before the embedded build", func(t *testing.T) {
		page(filepath.Join(ws, "console", "gen"), "workspace")
		files, _, err := consoleFiles(ws, &cfg)
		if err != nil || !strings.Contains(index(files), "workspace") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("CORE_CONSOLE_DIR before the workspace's", func(t *testing.T) {
		c := cfg
		c.Console.Dir = own
		files, _, err := consoleFiles(ws, &c)
		if err != nil || !strings.Contains(index(files), "own") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a CORE_CONSOLE_DIR without index.html is an error, not a fallback", func(t *testing.T) {
		c := cfg
		c.Console.Dir = t.TempDir()
		if _, _, err := consoleFiles(ws, &c); err == nil || !strings.Contains(err.Error(), "index.html") {
			t.Fatalf("err = %v", err)
		}
	})
}
