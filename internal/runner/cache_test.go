package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

const cacheYAML = `projects:
  util:
    path: libs/util
    targets:
      build:
        run: [/bin/sh, -c, "mkdir -p out && cat src.txt > out/util.txt && echo built util"]
        inputs: ["*.txt"]
        outputs: [out/]
  api:
    path: services/api
    deps: [util]
    targets:
      build:
        run: [/bin/sh, -c, "echo built api"]
        deps: ["util:build"]
  root:
    path: .
    targets:
      all:
        run: [/bin/echo, all]
  gen:
    path: gen
    targets:
      stamp:
        run: [/bin/sh, -c, "mkdir -p out && date +%s%N > out/stamp && echo x >> log.txt"]
        outputs: [out/, log.txt]
`

func cacheFiles() map[string]string {
	return map[string]string{
		"libs/util/src.txt":    "v1\n",
		"libs/util/README.md":  "docs\n",
		"services/api/main.go": "package main\n",
		"gen/input.txt":        "in\n",
	}
}

func TestBuildCache(t *testing.T) {
	cases := []struct {
		name   string
		target string
		change func(f *fixture)
		want   map[string]string // target -> status on the second run
	}{
		{
			name:   "running the same targets twice hits the cache",
			target: "api:build",
			want:   map[string]string{"util:build": StateCached, "api:build": StateCached},
		},
		{
			name:   "changing the argv misses the cache",
			target: "api:build",
			change: func(f *fixture) {
				f.write("targets.yaml", strings.Replace(cacheYAML, "echo built api", "echo built api again", 1))
			},
			want: map[string]string{"util:build": StateCached, "api:build": StateSucceeded},
		},
		{
			name:   "changing an input's content misses the cache",
			target: "util:build",
			change: func(f *fixture) { f.write("libs/util/src.txt", "v2\n") },
			want:   map[string]string{"util:build": StateSucceeded},
		},
		{
			name:   "changing a dependency's inputs misses the cache for the dependent",
			target: "api:build",
			change: func(f *fixture) { f.write("libs/util/src.txt", "v2\n") },
			want:   map[string]string{"util:build": StateSucceeded, "api:build": StateSucceeded},
		},
		{
			name:   "a new input file misses the cache",
			target: "util:build",
			change: func(f *fixture) { f.write("libs/util/more.txt", "more\n") },
			want:   map[string]string{"util:build": StateSucceeded},
		},
		{
			name:   "making an input executable misses the cache",
			target: "util:build",
			change: func(f *fixture) {
				if err := os.Chmod(filepath.Join(f.root, "libs/util/src.txt"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			want: map[string]string{"util:build": StateSucceeded},
		},
		{
			name:   "a file outside the input globs does not change the key",
			target: "util:build",
			change: func(f *fixture) { f.write("libs/util/README.md", "new docs\n") },
			want:   map[string]string{"util:build": StateCached},
		},
		{
			name:   "files in .git and node_modules are not inputs",
			target: "gen:stamp",
			change: func(f *fixture) {
				f.write("gen/.git/HEAD", "ref\n")
				f.write("gen/node_modules/x/index.js", "x\n")
			},
			want: map[string]string{"gen:stamp": StateCached},
		},
		{
			name:   "the cache directory is not an input of a project at the root",
			target: "root:all",
			want:   map[string]string{"root:all": StateCached},
		},
		{
			name:   "a target's own outputs are not its inputs",
			target: "gen:stamp",
			want:   map[string]string{"gen:stamp": StateCached},
		},
		{
			name:   "a changed file under the default inputs misses the cache",
			target: "gen:stamp",
			change: func(f *fixture) { f.write("gen/input.txt", "changed\n") },
			want:   map[string]string{"gen:stamp": StateSucceeded},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, cacheYAML, cacheFiles())
			first := f.run(c.target)
			for id, r := range first {
				if r.Status != StateSucceeded {
					t.Fatalf("first run: %s is %s (%s), want succeeded", id, r.Status, r.Err)
				}
			}
			if c.change != nil {
				c.change(f)
			}
			second := f.run(c.target)
			for id, want := range c.want {
				if got := second[id].Status; got != want {
					t.Errorf("second run: %s is %s, want %s", id, got, want)
				}
				if second[id].CacheKey == "" {
					t.Errorf("second run: %s has no cache key", id)
				}
				if want == StateCached && second[id].CacheKey != first[id].CacheKey {
					t.Errorf("%s: cached with key %s, first run had %s", id, second[id].CacheKey, first[id].CacheKey)
				}
				if want == StateSucceeded && second[id].CacheKey == first[id].CacheKey {
					t.Errorf("%s: ran again with the same key %s", id, first[id].CacheKey)
				}
			}
		})
	}
}

func TestCacheHitRestoresOutputs(t *testing.T) {
	t.Run("deleted outputs come back on a hit", func(t *testing.T) {
		f := newFixture(t, cacheYAML, cacheFiles())
		f.run("util:build")
		if err := os.RemoveAll(filepath.Join(f.root, "libs/util/out")); err != nil {
			t.Fatal(err)
		}
		if got := f.run("util:build")["util:build"].Status; got != StateCached {
			t.Fatalf("second run is %s, want cached", got)
		}
		if got, ok := f.read("libs/util/out/util.txt"); !ok || got != "v1\n" {
			t.Errorf("out/util.txt = %q (exists %v), want the cached %q", got, ok, "v1\n")
		}
	})
	t.Run("edited outputs and stray files are replaced by the cached ones", func(t *testing.T) {
		f := newFixture(t, cacheYAML, cacheFiles())
		f.run("util:build")
		f.write("libs/util/out/util.txt", "tampered\n")
		f.write("libs/util/out/stray.txt", "stray\n")
		f.run("util:build")
		if got, _ := f.read("libs/util/out/util.txt"); got != "v1\n" {
			t.Errorf("out/util.txt = %q, want %q", got, "v1\n")
		}
		if _, ok := f.read("libs/util/out/stray.txt"); ok {
			t.Error("out/stray.txt survived the restore")
		}
	})
	t.Run("file outputs outside a directory are restored too", func(t *testing.T) {
		f := newFixture(t, cacheYAML, cacheFiles())
		f.run("gen:stamp")
		stamp, _ := f.read("gen/out/stamp")
		if err := os.Remove(filepath.Join(f.root, "gen/log.txt")); err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(f.root, "gen/out")); err != nil {
			t.Fatal(err)
		}
		if got := f.run("gen:stamp")["gen:stamp"].Status; got != StateCached {
			t.Fatalf("second run is %s, want cached", got)
		}
		if got, _ := f.read("gen/out/stamp"); got != stamp || stamp == "" {
			t.Errorf("out/stamp = %q, want the cached %q", got, stamp)
		}
		if got, _ := f.read("gen/log.txt"); got != "x\n" {
			t.Errorf("log.txt = %q, want %q", got, "x\n")
		}
	})
}

func TestCacheHitReplaysOutput(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	f.run("util:build")
	var out syncBuffer
	res := f.runWith(f.runner(Options{Output: &out}), "util:build")
	if res["util:build"].Status != StateCached {
		t.Fatalf("status %s, want cached", res["util:build"].Status)
	}
	if got := out.String(); got != "[util:build] built util\n" {
		t.Errorf("replayed output = %q", got)
	}
	j, err := ReadJournal(f.cacheDir(), res["util:build"].RunID)
	if err != nil {
		t.Fatal(err)
	}
	if !j.CacheHit || j.Status != StateCached || j.Output != "built util\n" || j.CacheKey != res["util:build"].CacheKey {
		t.Errorf("journal of the hit = %+v", j)
	}
}

func TestFailedRunsAreNotCached(t *testing.T) {
	f := newFixture(t, `projects:
  a:
    path: a
    targets:
      flaky:
        run: [/bin/sh, -c, "echo try >> ../tries; exit 3"]
`, map[string]string{"a/x.txt": "x"})
	for i := range 2 {
		r := f.run("a:flaky")["a:flaky"]
		if r.Status != StateFailed || r.ExitCode != 3 {
			t.Fatalf("run %d: %+v, want failed with exit 3", i+1, r)
		}
	}
	if got, _ := f.read("tries"); got != "try\ntry\n" {
		t.Errorf("tries = %q: a failed run was served from the cache", got)
	}
	if n := CacheEntries(f.cacheDir()); n != 0 {
		t.Errorf("cache holds %d entries after only failures", n)
	}
}

func TestClearCacheEmptiesTheCache(t *testing.T) {
	f := newFixture(t, cacheYAML, cacheFiles())
	r := f.runner(Options{})
	f.runWith(r, "api:build", "gen:stamp")
	if n := CacheEntries(f.cacheDir()); n != 3 {
		t.Fatalf("CacheEntries = %d, want 3", n)
	}
	removed, err := r.ClearCache()
	if err != nil || removed != 3 {
		t.Fatalf("ClearCache = %d, %v; want 3", removed, err)
	}
	if n := CacheEntries(f.cacheDir()); n != 0 {
		t.Errorf("%d entries left after ClearCache", n)
	}
	if got := f.runWith(r, "util:build")["util:build"].Status; got != StateSucceeded {
		t.Errorf("after ClearCache the target is %s, want succeeded (a miss)", got)
	}
}

func TestSafeRel(t *testing.T) {
	for rel, want := range map[string]bool{
		"out/a": true, "a": true, "../a": false, "/etc/passwd": false, "a/../../b": false, "": false, "..": false,
	} {
		if got := safeRel(rel); got != want {
			t.Errorf("safeRel(%q) = %v, want %v", rel, got, want)
		}
	}
}

// Two runners on one cache stand for the CLI and a server: a file lock
// makes the second wait for the first and take its cache entry, so the
// command runs once.
func TestTwoProcessesRunATargetOnce(t *testing.T) {
	f := newFixture(t, `projects:
  app:
    path: app
    targets:
      build:
        run: [sh, -c, "echo run >> count.txt; sleep 0.3"]
        inputs: ["src.txt"]
`, map[string]string{"app/src.txt": "v1\n"})
	a, b := f.runner(Options{}), f.runner(Options{})
	var wg sync.WaitGroup
	results := make([]map[string]TargetResult, 2)
	for i, r := range []*Runner{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Run(context.Background(), f.ws(), []string{"app:build"})
			if err != nil {
				t.Error(err)
				return
			}
			results[i] = byTarget(res)
		}()
	}
	wg.Wait()
	count, _ := f.read("app/count.txt")
	if n := strings.Count(count, "run"); n != 1 {
		t.Fatalf("the command ran %d times", n)
	}
	states := []string{results[0]["app:build"].Status, results[1]["app:build"].Status}
	slices.Sort(states)
	if states[0] != StateCached || states[1] != StateSucceeded {
		t.Fatalf("states %v, want one cached and one succeeded", states)
	}
}

// TestTheDeclaredEnvironmentIsInTheKey: a variable a target lists in env:
// changes its key; one it does not list does not.
func TestTheDeclaredEnvironmentIsInTheKey(t *testing.T) {
	f := newFixture(t, `projects:
  a:
    path: a
    targets:
      env:
        run: [/bin/sh, -c, "echo FOO=$FOO BAR=$BAR"]
        env: [FOO]
`, map[string]string{"a/x.txt": "x\n"})
	steps := []struct {
		name, foo, bar, want string
	}{
		{"the first run runs", "two", "1", StateSucceeded},
		{"the same value hits the cache", "two", "1", StateCached},
		{"a declared variable's new value runs again", "three", "1", StateSucceeded},
		{"an undeclared variable is not in the key", "three", "2", StateCached},
	}
	for _, s := range steps {
		t.Setenv("FOO", s.foo)
		t.Setenv("BAR", s.bar)
		if got := f.run("a:env")["a:env"].Status; got != s.want {
			t.Fatalf("%s: status %s, want %s", s.name, got, s.want)
		}
	}
	t.Setenv("FOO", "")
	if got := f.run("a:env")["a:env"].Status; got != StateSucceeded {
		t.Fatalf("an empty value: %s", got)
	}
	os.Unsetenv("FOO")
	if got := f.run("a:env")["a:env"].Status; got != StateSucceeded {
		t.Errorf("an unset variable is not the empty one: %s", got)
	}
}

// TestWhatTheKeyCoversBeyondTheInputs: the project's manifest, the root's
// lockfile, global_inputs and // inputs each rebuild what they should.
func TestWhatTheKeyCoversBeyondTheInputs(t *testing.T) {
	f := newFixture(t, `global_inputs: [tsconfig.base.json]
projects:
  web:
    path: web
    targets:
      build:
        run: [/bin/sh, -c, "echo web"]
        inputs: ["src/**"]
  api:
    path: api
    targets:
      build:
        run: [/bin/sh, -c, "echo api"]
        inputs: ["*.go", "//proto/**/*.proto"]
`, map[string]string{
		"web/package.json":   `{"scripts":{"build":"tsc"}}`,
		"web/src/a.ts":       "a\n",
		"api/main.go":        "package main\n",
		"proto/v1/api.proto": "syntax = \"proto3\";\n",
		"package-lock.json":  "{}\n",
		"tsconfig.base.json": "{}\n",
		"README.md":          "not an input\n",
	})
	statuses := func() string {
		r := f.run("web:build", "api:build")
		return r["web:build"].Status + " " + r["api:build"].Status
	}
	if got := statuses(); got != "succeeded succeeded" {
		t.Fatalf("first run: %s", got)
	}
	for _, c := range []struct {
		name, file, content, want string
	}{
		{"nothing changed hits the cache", "", "", "cached cached"},
		{"a file outside every input changes nothing", "README.md", "still not\n", "cached cached"},
		{"a changed script in the project's manifest rebuilds it", "web/package.json", `{"scripts":{"build":"tsc -b"}}`, "succeeded cached"},
		{"a // input rebuilds only its target", "proto/v1/api.proto", "syntax = \"proto3\"; // 2\n", "cached succeeded"},
		{"the root lockfile rebuilds everything", "package-lock.json", "{\"v\":2}\n", "succeeded succeeded"},
		{"a global input rebuilds everything", "tsconfig.base.json", "{\"strict\":true}\n", "succeeded succeeded"},
	} {
		if c.file != "" {
			f.write(c.file, c.content)
		}
		if got := statuses(); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
