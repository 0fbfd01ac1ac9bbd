package live

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/events"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/query"
	"github.com/corehq/core/internal/testbed"
	"github.com/corehq/core/internal/watch"
)

type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Publish(kind string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, kind+" "+string(data))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.events
	r.events = nil
	return out
}

const goodYAML = `projects:
  app:
    path: app
    targets:
      build:
        run: [go, build, ./...]
`

func newRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, root, "targets.yaml", goodYAML)
	return root
}

func write(t *testing.T, root, rel, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestABrokenFileKeepsTheLastGoodGraph(t *testing.T) {
	root := newRoot(t)
	rec := &recorder{}
	w := New(root, filepath.Join(root, ".core"), rec, zerolog.Nop())
	first, err := w.Current()
	if err != nil {
		t.Fatal(err)
	}
	if ev := rec.take(); len(ev) != 1 || !strings.HasPrefix(ev[0], events.KindGraph+" ") {
		t.Fatalf("first build published %v", ev)
	}

	write(t, root, "targets.yaml", "projects: [\n")
	if err := w.Rebuild(); err == nil {
		t.Fatal("a broken targets.yaml rebuilt")
	}
	cur, err := w.Current()
	if err != nil || cur != first {
		t.Fatalf("the last good graph is gone: %v", err)
	}
	if w.Diagnostic() == nil || !strings.Contains(w.Diagnostic().Error(), "targets.yaml") {
		t.Fatalf("diagnostic = %v", w.Diagnostic())
	}
	if ev := rec.take(); len(ev) != 1 || !strings.HasPrefix(ev[0], events.KindDiagnostic+" ") || !strings.Contains(ev[0], "targets.yaml") {
		t.Fatalf("the breakage published %v", ev)
	}

	write(t, root, "targets.yaml", goodYAML)
	if err := w.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if w.Diagnostic() != nil {
		t.Fatal("the diagnostic outlived the fix")
	}
	ev := rec.take()
	if len(ev) != 1 || ev[0] != events.KindDiagnostic+` {"message":"","source":"targets.yaml"}` {
		t.Fatalf("the fix published %v (the graph did not change, so no graph event)", ev)
	}
}

func TestAnUnchangedGraphPublishesNothing(t *testing.T) {
	root := newRoot(t)
	rec := &recorder{}
	w := New(root, "", rec, zerolog.Nop())
	first, _ := w.Current()
	rec.take()
	write(t, root, "app/notes.txt", "not indexed\n")
	if err := w.Rebuild(); err != nil {
		t.Fatal(err)
	}
	cur, _ := w.Current()
	if cur != first || len(rec.take()) != 0 {
		t.Fatal("a rebuild with the same bytes made a new version")
	}
	write(t, root, "docs/guide.md", "# Guide\n")
	if err := w.Rebuild(); err != nil {
		t.Fatal(err)
	}
	cur, _ = w.Current()
	if cur.Version != first.Version+1 || cur.ETag == first.ETag {
		t.Fatalf("version %d etag %s after a new doc", cur.Version, cur.ETag)
	}
	if ev := rec.take(); len(ev) != 1 || !strings.HasPrefix(ev[0], "graph ") {
		t.Fatalf("published %v", ev)
	}
}

func TestAWorkspaceThatNeverLoadedHasNoGraph(t *testing.T) {
	root := t.TempDir()
	write(t, root, "targets.yaml", "bogus: 1\n")
	w := New(root, "", nil, zerolog.Nop())
	if _, err := w.Current(); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Fatalf("Current() = %v", err)
	}
}

// Reordering imports looks structural to the indexer but leaves the default
// graph as it was: no new version, but the symbols may have changed, so the
// event says so.
func TestAnEditThatKeepsTheGraphStillAnnouncesTheSymbols(t *testing.T) {
	root := newRoot(t)
	write(t, root, "go.mod", "module example.com/x\n\ngo 1.22\n")
	write(t, root, "app/main.go", "package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc main() { fmt.Println(os.Args) }\n")
	rec := &recorder{}
	w := New(root, "", rec, zerolog.Nop())
	first, err := w.Current()
	if err != nil {
		t.Fatal(err)
	}
	rec.take()
	write(t, root, "app/main.go", "package main\n\nimport (\n\t\"os\"\n\t\"fmt\"\n)\n\nfunc main() { fmt.Println(os.Args) }\n\nfunc Added() {}\n")
	if err := w.Changed(watch.Batch{Paths: []string{"app/main.go"}}); err != nil {
		t.Fatal(err)
	}
	if cur, _ := w.Current(); cur != first {
		t.Fatalf("a new version %d for the same graph", cur.Version)
	}
	ev := rec.take()
	if len(ev) != 1 || !strings.HasPrefix(ev[0], "graph ") || !strings.Contains(ev[0], `"symbols_version"`) {
		t.Fatalf("published %v, want one graph event with a symbols_version", ev)
	}
}

func TestAnExactSymbolQueryLeavesTheWholeSymbolGraphUnbuilt(t *testing.T) {
	root := newRoot(t)
	write(t, root, "go.mod", "module example.com/x\n\ngo 1.22\n")
	write(t, root, "app/main.go", "package main\n\nfunc main() { Helper() }\n\nfunc Helper() {}\n")
	w := New(root, "", nil, zerolog.Nop())
	if _, err := w.Current(); err != nil {
		t.Fatal(err)
	}
	ask := func(text string) string {
		t.Helper()
		q, err := query.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		g, err := w.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		return string(g.Encode())
	}
	exact := ask("symbol:Helper")
	if !strings.Contains(exact, `"source":"symbol:app/main.go#main","target":"symbol:app/main.go#Helper"`) {
		t.Fatalf("symbol:Helper = %s, want the reference from main", exact)
	}
	if w.ix.SymbolsReady() {
		t.Fatal("an exact symbol query assembled the whole symbol graph")
	}
	ask("symbol:Help*") // a glob needs the whole graph
	if !w.ix.SymbolsReady() {
		t.Fatal("a glob did not assemble the whole symbol graph")
	}
	if again := ask("symbol:Helper"); again != exact {
		t.Fatalf("over the whole graph symbol:Helper = %s, over its part %s", again, exact)
	}
}

// TestIndexProblemsAreLoggedOnceAndAnnounced: a file that grows past the
// indexing limit while the server runs is logged once and announced as an
// index diagnostic; its end is announced too.
func TestIndexProblemsAreLoggedOnceAndAnnounced(t *testing.T) {
	root := newRoot(t)
	rec := &recorder{}
	var logs bytes.Buffer
	w := New(root, "", rec, zerolog.New(&logs))
	rec.take()
	big := "# big\n\n" + strings.Repeat("x", index.DefaultMaxFileSize+1)
	write(t, root, "README.md", big)
	for range 2 { // the same problem twice: logged and announced once
		if err := w.Changed(watch.Batch{Paths: []string{"README.md"}}); err != nil {
			t.Fatal(err)
		}
	}
	var announced []string
	for _, e := range rec.take() {
		if strings.HasPrefix(e, events.KindDiagnostic+" ") {
			announced = append(announced, e)
		}
	}
	if len(announced) != 1 || !strings.Contains(announced[0], `"source":"index"`) || !strings.Contains(announced[0], "README.md") {
		t.Fatalf("announced %v", announced)
	}
	if n := strings.Count(logs.String(), `"message":"not indexed"`); n != 1 || !strings.Contains(logs.String(), "indexing limit") {
		t.Fatalf("logged %d times:\n%s", n, logs.String())
	}
	write(t, root, "README.md", "# small\n")
	if err := w.Changed(watch.Batch{Paths: []string{"README.md"}}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range rec.take() {
		found = found || e == events.KindDiagnostic+` {"message":"","source":"index"}`
	}
	if !found {
		t.Fatal("the end of the problem was not announced")
	}
}

func TestAFirstIndexSaysWhatItIsDoingWhileItRuns(t *testing.T) {
	var logs testbed.Buffer
	p := index.Progress{Phase: index.PhaseParsing, Found: 1200, ToParse: 900, Parsed: 300}
	stop := reportProgress(func() index.Progress { return p }, zerolog.New(&logs), time.Millisecond)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "indexing") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	stop()
	for _, want := range []string{`"message":"indexing"`, `"phase":"parsing"`, `"files":1200`, `"parsed":"300/900"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the progress line lacks %s:\n%s", want, logs.String())
		}
	}
	n := len(logs.String())
	time.Sleep(5 * time.Millisecond)
	if len(logs.String()) != n {
		t.Error("progress is still reported after stop")
	}
}
