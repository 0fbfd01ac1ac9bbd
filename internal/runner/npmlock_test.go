package runner

import (
	"context"
	"encoding/json"
	"testing"
)

// lockJSON writes an npm v3 lockfile whose packages are entries.
func lockJSON(t testing.TB, entries map[string]any) string {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"name": "mono", "lockfileVersion": 3, "requires": true, "packages": entries}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// shopLock: the root (a dev tool), two workspaces (web uses left, which
// uses its own copy of pad; api uses nothing external), and a package
// nobody resolves.
func shopLock() map[string]any {
	return map[string]any{
		"":                                   map[string]any{"name": "mono", "workspaces": []string{"packages/*"}, "devDependencies": map[string]string{"tool": "^1.0.0"}},
		"node_modules/tool":                  map[string]any{"version": "1.0.0", "integrity": "sha512-tool1"},
		"node_modules/@shop/web":             map[string]any{"resolved": "packages/web", "link": true},
		"node_modules/@shop/api":             map[string]any{"resolved": "packages/api", "link": true},
		"packages/web":                       map[string]any{"name": "@shop/web", "dependencies": map[string]string{"left": "^2.0.0", "@shop/api": "*"}, "optionalDependencies": map[string]string{"fsevents": "*"}},
		"packages/api":                       map[string]any{"name": "@shop/api"},
		"node_modules/left":                  map[string]any{"version": "2.0.0", "integrity": "sha512-left2", "dependencies": map[string]string{"pad": "^3.0.0"}},
		"node_modules/left/node_modules/pad": map[string]any{"version": "3.0.0", "integrity": "sha512-pad3"},
		"node_modules/pad":                   map[string]any{"version": "1.0.0", "integrity": "sha512-pad1"},
		"node_modules/unused":                map[string]any{"version": "9.9.9", "integrity": "sha512-unused"},
	}
}

func TestALockfileSliceHoldsWhatTheProjectResolves(t *testing.T) {
	slice := func(entries map[string]any, project string) [32]byte {
		t.Helper()
		l, ok := parseNPMLock([]byte(lockJSON(t, entries)))
		if !ok {
			t.Fatal("the lockfile did not parse")
		}
		return l.slice(project)
	}
	cases := []struct {
		fact     string
		change   func(m map[string]any)
		web, api bool // whether each project's part changes
	}{
		{"a package a project depends on is its part", func(m map[string]any) {
			m["node_modules/left"] = map[string]any{"version": "2.0.1", "integrity": "sha512-left201", "dependencies": map[string]string{"pad": "^3.0.0"}}
		}, true, false},
		{"a nested copy the dependency resolves first is its part", func(m map[string]any) {
			m["node_modules/left/node_modules/pad"] = map[string]any{"version": "3.0.1", "integrity": "sha512-pad301"}
		}, true, false},
		{"the hoisted copy the nested one shadows is no one's part", func(m map[string]any) {
			m["node_modules/pad"] = map[string]any{"version": "1.0.1", "integrity": "sha512-pad101"}
		}, false, false},
		{"a package nothing resolves is no one's part", func(m map[string]any) { delete(m, "node_modules/unused") }, false, false},
		{"the root's dependencies are every project's part", func(m map[string]any) {
			m["node_modules/tool"] = map[string]any{"version": "1.1.0", "integrity": "sha512-tool11"}
		}, true, true},
		{"a sibling workspace's entry is its own part, not its dependents'", func(m map[string]any) {
			m["packages/api"] = map[string]any{"name": "@shop/api", "version": "2.0.0"}
		}, false, true},
		{"a sibling whose directory name starts with the project's is not its part", func(m map[string]any) {
			m["packages/web-old"] = map[string]any{"name": "@shop/web-old", "version": "0.1.0", "dependencies": map[string]string{"left": "^2.0.0"}}
		}, false, false},
		{"a package installed under the project's directory is its part", func(m map[string]any) {
			m["packages/web/node_modules/solo"] = map[string]any{"version": "1.0.0", "integrity": "sha512-solo"}
		}, true, false},
		{"an optional dependency that arrives is its dependent's part", func(m map[string]any) {
			m["node_modules/fsevents"] = map[string]any{"version": "2.3.3", "integrity": "sha512-fse", "optional": true}
		}, true, false},
	}
	for _, c := range cases {
		t.Run(c.fact, func(t *testing.T) {
			before := shopLock()
			after := shopLock()
			c.change(after)
			if got := slice(before, "packages/web") != slice(after, "packages/web"); got != c.web {
				t.Errorf("web's part changed: %v, want %v", got, c.web)
			}
			if got := slice(before, "packages/api") != slice(after, "packages/api"); got != c.api {
				t.Errorf("api's part changed: %v, want %v", got, c.api)
			}
		})
	}
	t.Run("a project that holds a workspace takes its part", func(t *testing.T) {
		before, after := shopLock(), shopLock()
		after["node_modules/left"] = map[string]any{"version": "2.0.1"}
		if slice(before, "packages") == slice(after, "packages") {
			t.Error("a bump of what packages/web resolves left the part of the project at packages unchanged")
		}
		if slice(before, ".") == slice(after, ".") {
			t.Error("a bump left the root project's part unchanged")
		}
	})
	t.Run("a project npm does not know takes the root's part", func(t *testing.T) {
		before, after := shopLock(), shopLock()
		after["node_modules/tool"] = map[string]any{"version": "1.1.0"}
		if slice(before, "services/go") == slice(after, "services/go") {
			t.Error("a change to the root's dependencies left a Go project's part unchanged")
		}
	})
}

func TestWhatIsNotAnNpmLockfileStaysWhole(t *testing.T) {
	for _, c := range []struct{ fact, data string }{
		{"lockfile version 1 has no packages", `{"lockfileVersion":1,"dependencies":{}}`},
		{"no version", `{"packages":{}}`},
		{"not JSON", `lockfileVersion: 3`},
		{"packages of the wrong shape", `{"lockfileVersion":3,"packages":{"node_modules/a":{"dependencies":["a"]}}}`},
		{"an empty file", ``},
	} {
		t.Run(c.fact, func(t *testing.T) {
			if _, ok := parseNPMLock([]byte(c.data)); ok {
				t.Error("parsed as an npm lockfile")
			}
		})
	}
}

func FuzzNPMLock(f *testing.F) {
	f.Add([]byte(lockJSON(f, shopLock())), "packages/web")
	f.Add([]byte(`{"lockfileVersion":3,"packages":{"":{"dependencies":{"a":"1"}},"node_modules/a":{"dependencies":{"a":"1"}}}}`), ".")
	f.Add([]byte(`{"lockfileVersion":2,"packages":{"x/node_modules/a":{"link":true}}}`), "x")
	f.Fuzz(func(t *testing.T, data []byte, project string) {
		l, ok := parseNPMLock(data)
		if !ok {
			return
		}
		// Deterministic, whatever the map order, and the same from the cache.
		a := l.slice(project)
		l2, _ := parseNPMLock(data)
		if a != l2.slice(project) || a != l.slice(project) {
			t.Fatal("the slice is not deterministic")
		}
	})
}

// TestAnNpmLockfileChangeRebuildsWhatResolvesTheChange: a lockfile change
// rebuilds the projects whose part of it changed (and their dependents),
// as Turborepo does, not every target; core hash shows the part.
func TestAnNpmLockfileChangeRebuildsWhatResolvesTheChange(t *testing.T) {
	f := newFixture(t, `projects:
  web:
    path: packages/web
    targets:
      build:
        run: [/bin/sh, -c, "echo web"]
        deps: ["^build"]
  api:
    path: packages/api
    targets:
      build:
        run: [/bin/sh, -c, "echo api"]
  tools:
    path: tools
    targets:
      build:
        run: [/bin/sh, -c, "echo tools"]
`, map[string]string{
		"package.json":              `{"private":true,"workspaces":["packages/*"],"devDependencies":{"tool":"^1.0.0"}}`,
		"packages/web/package.json": `{"name":"@shop/web","dependencies":{"left":"^2.0.0","@shop/api":"*"}}`,
		"packages/api/package.json": `{"name":"@shop/api"}`,
		"tools/main.go":             "package main\n",
		"package-lock.json":         lockJSON(t, shopLock()),
	})
	statuses := func() string {
		r := f.run("web:build", "api:build", "tools:build")
		return r["web:build"].Status + " " + r["api:build"].Status + " " + r["tools:build"].Status
	}
	if got := statuses(); got != "succeeded succeeded succeeded" {
		t.Fatalf("first run: %s", got)
	}
	for _, c := range []struct {
		fact   string
		change func(m map[string]any)
		want   string
	}{
		{"a dependency web resolves rebuilds web alone", func(m map[string]any) {
			m["node_modules/left"] = map[string]any{"version": "2.0.1", "dependencies": map[string]string{"pad": "^3.0.0"}}
		}, "succeeded cached cached"},
		{"a package no one resolves rebuilds nothing", func(m map[string]any) {
			m["node_modules/left"] = map[string]any{"version": "2.0.1", "dependencies": map[string]string{"pad": "^3.0.0"}}
			delete(m, "node_modules/unused")
		}, "cached cached cached"},
		{"api's entry rebuilds api and web, which depends on it", func(m map[string]any) {
			m["node_modules/left"] = map[string]any{"version": "2.0.1", "dependencies": map[string]string{"pad": "^3.0.0"}}
			delete(m, "node_modules/unused")
			m["packages/api"] = map[string]any{"name": "@shop/api", "version": "1.0.1"}
		}, "succeeded succeeded cached"},
		{"the root's dev tool rebuilds everything", func(m map[string]any) {
			m["node_modules/left"] = map[string]any{"version": "2.0.1", "dependencies": map[string]string{"pad": "^3.0.0"}}
			delete(m, "node_modules/unused")
			m["packages/api"] = map[string]any{"name": "@shop/api", "version": "1.0.1"}
			m["node_modules/tool"] = map[string]any{"version": "1.1.0"}
		}, "succeeded succeeded succeeded"},
		{"a lockfile that no longer parses rebuilds everything", nil, "succeeded succeeded succeeded"},
	} {
		if c.change == nil {
			f.write("package-lock.json", "{\n")
		} else {
			m := shopLock()
			c.change(m)
			f.write("package-lock.json", lockJSON(t, m))
		}
		if got := statuses(); got != c.want {
			t.Errorf("%s: %s, want %s", c.fact, got, c.want)
		}
	}
	f.write("package-lock.json", lockJSON(t, shopLock()))
	k, err := f.runner(Options{}).Explain(context.Background(), f.ws(), "web:build")
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Global) != 1 || k.Global[0].Path != "package-lock.json" || k.Global[0].Kind != "s" {
		t.Errorf("core hash shows the global inputs %+v, want package-lock.json as web's part (kind s)", k.Global)
	}
}
