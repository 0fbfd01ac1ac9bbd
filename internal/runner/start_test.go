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
