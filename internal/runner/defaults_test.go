package runner

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestADefaultCountsInTheKeyAsIfWrittenInTheProject: a target that takes
// its settings from defaults: has the key it has with them written in its
// project, so moving settings into defaults: replays every stored result,
// and a change to a default is a change to every target that takes it.
func TestADefaultCountsInTheKeyAsIfWrittenInTheProject(t *testing.T) {
	const inline = `pass_env: [PATH]
projects:
  util:
    path: util
    targets:
      build: {run: [sh, -c, "mkdir -p dist && cp src.txt dist/"], inputs: [src.txt], outputs: [dist/], env: [MODE]}
      test: {run: [sh, -c, "cat dist/src.txt"], inputs: [src.txt], deps: [build], env: [MODE]}
  app:
    path: app
    deps: [util]
    targets:
      build: {run: [sh, -c, "mkdir -p dist && cat ../util/dist/src.txt > dist/out.txt"], inputs: [src.txt], outputs: [dist/], deps: ["^build"], env: [MODE]}
      test: {run: [sh, -c, "cat dist/out.txt"], inputs: [src.txt], deps: [build, "^build"], env: [MODE]}
`
	const withDefaults = `pass_env: [PATH]
defaults:
  build: {outputs: [dist/], deps: ["^build"], env: [MODE], inputs: [src.txt]}
  test: {deps: [build, "^build"], env: [MODE], inputs: [src.txt]}
projects:
  util:
    path: util
    targets:
      build: {run: [sh, -c, "mkdir -p dist && cp src.txt dist/"]}
      test: {run: [sh, -c, "cat dist/src.txt"], deps: [build]}
  app:
    path: app
    deps: [util]
    targets:
      build: {run: [sh, -c, "mkdir -p dist && cat ../util/dist/src.txt > dist/out.txt"]}
      test: {run: [sh, -c, "cat dist/out.txt"]}
`
	f := newFixture(t, inline, map[string]string{"util/src.txt": "u\n", "app/src.txt": "a\n"})
	targets := []string{"util:build", "util:test", "app:build", "app:test"}
	keys := func() map[string]string {
		t.Helper()
		ws := f.ws()
		out := map[string]string{}
		for _, id := range targets {
			k, err := f.runner(Options{}).Explain(context.Background(), ws, id)
			if err != nil {
				t.Fatal(err)
			}
			out[id] = k.Key
		}
		return out
	}
	before := keys()
	for id, r := range f.run(targets...) {
		if r.Status != StateSucceeded {
			t.Fatalf("%s: %+v", id, r)
		}
	}

	f.write("targets.yaml", withDefaults)
	after := keys()
	for _, id := range targets {
		if before[id] != after[id] {
			t.Errorf("%s: key %s written in the project, %s from defaults:", id, before[id], after[id])
		}
	}
	for id, r := range f.run(targets...) {
		if r.Status != StateCached {
			t.Errorf("%s after moving its settings into defaults: %s, want a replay", id, r.Status)
		}
	}
	k, err := f.runner(Options{}).Explain(context.Background(), f.ws(), "app:test")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"deps", "env", "inputs"}; !slices.Equal(k.Declaration.FromDefaults, want) {
		t.Errorf("core hash says app:test takes %v from defaults:, want %v", k.Declaration.FromDefaults, want)
	}

	// A default's change moves the key of every target that takes it, and
	// of no other.
	f.write("targets.yaml", strings.Replace(withDefaults, "test: {deps: [build, \"^build\"], env: [MODE]", "test: {deps: [build, \"^build\"], env: [MODE, OTHER]", 1))
	changed := keys()
	for _, id := range targets {
		if moved, test := changed[id] != after[id], strings.HasSuffix(id, ":test"); moved != test {
			t.Errorf("%s: key moved %v after the default of test changed", id, moved)
		}
	}
}
