package runner

import (
	"context"
	"testing"
)

func TestStartPromisesTheRunID(t *testing.T) {
	f := newFixture(t, `projects:
  app:
    path: app
    targets:
      build: {run: [/bin/sh, -c, "echo built"]}
      broken: {run: [/bin/sh, -c, "exit 4"]}
      after: {run: [/bin/sh, -c, "echo never"], deps: [broken]}
`, map[string]string{"app/x.txt": "x"})
	r := f.runner(Options{Trigger: "console"})
	for _, tc := range []struct {
		name, target, want string
	}{
		{"a run that executes ends with its promised id", "app:build", StateSucceeded},
		{"a cache hit keeps the promised id", "app:build", StateCached},
		{"a run that fails keeps the promised id", "app:broken", StateFailed},
		{"a run whose dependency failed records why under the promised id", "app:after", StateFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id, done, err := r.Start(context.Background(), f.ws(), tc.target)
			if err != nil {
				t.Fatal(err)
			}
			j, err := ReadJournal(f.cacheDir(), id)
			if err != nil {
				t.Fatalf("the journal is not there at once: %v", err)
			}
			if j.Target != tc.target || j.Trigger != "console" {
				t.Fatalf("journal %+v", j)
			}
			res := <-done
			if got := byTarget(res)[tc.target]; got.RunID != id || got.Status != tc.want {
				t.Fatalf("result %+v, want status %s under id %s", got, tc.want, id)
			}
			j, _ = ReadJournal(f.cacheDir(), id)
			if j.Status != tc.want {
				t.Fatalf("journal status %s, want %s", j.Status, tc.want)
			}
		})
	}
	t.Run("an unknown target is refused before anything is written", func(t *testing.T) {
		if _, _, err := r.Start(context.Background(), f.ws(), "app:nope"); err == nil {
			t.Fatal("accepted")
		}
	})
}

func TestStartAllRunsSeveralTargetsAsOneRunAndForceRunsAnyway(t *testing.T) {
	f := newFixture(t, `projects:
  a:
    path: a
    targets:
      test: {run: [/bin/sh, -c, "echo a"], deps: [lib:build]}
  b:
    path: b
    targets:
      test: {run: [/bin/sh, -c, "echo b"], deps: [lib:build]}
  lib:
    path: lib
    targets:
      build: {run: [/bin/sh, -c, "echo lib"]}
`, map[string]string{"a/x": "x", "b/x": "x", "lib/x": "x"})
	r := f.runner(Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		mode CacheMode
		want string
	}{
		{"the first run builds", CacheUse, StateSucceeded},
		{"the second is served by the cache", CacheUse, StateCached},
		{"a forced one runs anyway, on a runner that uses the cache", CacheRefresh, StateSucceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ids, done, err := r.StartAll(ctx, f.ws(), []string{"a:test", "b:test"}, tc.mode, "mcp")
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != 2 || ids["a:test"] == "" || ids["b:test"] == "" || ids["a:test"] == ids["b:test"] {
				t.Fatalf("ids %v", ids)
			}
			res := <-done
			got := byTarget(res)
			if len(res.Targets) != 3 {
				t.Errorf("the shared dependency did not run once: %+v", res.Targets)
			}
			for _, id := range []string{"a:test", "b:test", "lib:build"} {
				if got[id].Status != tc.want {
					t.Errorf("%s: %+v, want %s", id, got[id], tc.want)
				}
			}
			for target, id := range ids {
				if j, err := ReadJournal(f.cacheDir(), id); err != nil || j.Target != target || j.Status != tc.want || j.Trigger != "mcp" {
					t.Errorf("the journal of %s: %+v %v", target, j, err)
				}
			}
		})
	}
}
