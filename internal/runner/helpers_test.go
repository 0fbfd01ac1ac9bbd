package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/corehq/core/internal/workspace"
)

// fixture is a workspace on disk: targets.yaml plus files.
type fixture struct {
	t    *testing.T
	root string
}

func newFixture(t *testing.T, targetsYAML string, files map[string]string) *fixture {
	t.Helper()
	f := &fixture{t: t, root: t.TempDir()}
	f.write(workspace.FileName, targetsYAML)
	for p, c := range files {
		f.write(p, c)
	}
	return f
}

func (f *fixture) write(rel, content string) {
	f.t.Helper()
	p := filepath.Join(f.root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) read(rel string) (string, bool) {
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(rel)))
	return string(data), err == nil
}

func (f *fixture) ws() *workspace.Workspace {
	f.t.Helper()
	ws, err := workspace.Load(f.root)
	if err != nil {
		f.t.Fatal(err)
	}
	// Its files import nothing of each other: what the index would say.
	return ws.WithImports(nil)
}

func (f *fixture) cacheDir() string { return filepath.Join(f.root, ".core") }

func (f *fixture) runner(o Options) *Runner {
	o.Root = f.root
	if o.CacheDir == "" {
		o.CacheDir = f.cacheDir()
	}
	if o.Capacity == 0 {
		o.Capacity = 2
	}
	return New(o)
}

// run runs targets with a fresh Runner and returns the result by target.
func (f *fixture) run(targets ...string) map[string]TargetResult {
	f.t.Helper()
	return f.runWith(f.runner(Options{}), targets...)
}

func (f *fixture) runWith(r *Runner, targets ...string) map[string]TargetResult {
	f.t.Helper()
	res, err := r.Run(context.Background(), f.ws(), targets)
	if err != nil {
		f.t.Fatal(err)
	}
	return byTarget(res)
}

func byTarget(res *Result) map[string]TargetResult {
	m := map[string]TargetResult{}
	for _, t := range res.Targets {
		m[t.Target] = t
	}
	return m
}

// eventLog collects events safely.
type eventLog struct {
	mu     sync.Mutex
	events []Event
}

func (l *eventLog) add(e Event) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *eventLog) states(target string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var s []string
	for _, e := range l.events {
		if e.Target == target {
			s = append(s, e.State)
		}
	}
	return strings.Join(s, ",")
}

// syncBuffer is a bytes.Buffer safe for the runner's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
