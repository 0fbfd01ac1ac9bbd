package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnNpmWorkspaceBuildsInDependencyOrderWithoutDeclaredDeps: a fresh
// npm-workspaces monorepo, core init, no project deps written anywhere but
// in the package.json files (init's defaults: say build: deps: ["^build"]);
// core run build orders by them, a changed script and a
// changed lockfile rebuild exactly what they should (of an npm lockfile,
// what resolves the change).
func TestAnNpmWorkspaceBuildsInDependencyOrderWithoutDeclaredDeps(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	repo := t.TempDir()
	for path, content := range map[string]string{
		"package.json":               `{"private":true,"workspaces":["packages/*"]}`,
		"package-lock.json":          `{"lockfileVersion":3}`,
		"packages/ui/package.json":   `{"name":"@shop/ui","scripts":{"build":"node -e \"console.log('built ui')\""}}`,
		"packages/ui/index.js":       "module.exports = 1\n",
		"packages/app/package.json":  `{"name":"@shop/app","dependencies":{"@shop/ui":"*"},"scripts":{"build":"node -e \"console.log('built app')\""}}`,
		"packages/app/index.js":      "require('@shop/ui')\n",
		"packages/docs/package.json": `{"name":"@shop/docs","scripts":{"build":"node -e \"console.log('built docs')\""}}`,
	} {
		writeFileAtomicAt(t, filepath.Join(repo, path), content)
	}
	// init's defaults: each package's build after its dependencies' builds.
	mustCore(t, "", nil, "init", repo)

	first := mustCore(t, repo, nil, "run", "build")
	ui, app := strings.Index(first.Stderr, "✔ ui:build"), strings.Index(first.Stderr, "▶ app:build")
	if ui < 0 || app < 0 || app < ui {
		t.Fatalf("app:build did not wait for ui:build:\n%s", first.Stderr)
	}
	if r := mustCore(t, repo, nil, "run", "build"); strings.Count(r.Stderr, "(cached)") != 3 {
		t.Errorf("a second run is not all cached:\n%s", r.Stderr)
	}
	writeFileAtomicAt(t, filepath.Join(repo, "packages/docs/package.json"), `{"name":"@shop/docs","scripts":{"build":"node -e \"console.log('built docs v2')\""}}`)
	if r := mustCore(t, repo, nil, "run", "build"); !strings.Contains(r.Stdout, "built docs v2") || strings.Count(r.Stderr, "(cached)") != 2 {
		t.Errorf("a changed script did not rebuild exactly its target:\n%s%s", r.Stdout, r.Stderr)
	}
	writeFileAtomicAt(t, filepath.Join(repo, "package-lock.json"), `{"lockfileVersion":3,"packages":{}}`)
	if r := mustCore(t, repo, nil, "run", "build"); strings.Contains(r.Stderr, "(cached)") {
		t.Errorf("a changed lockfile did not rebuild everything:\n%s", r.Stderr)
	}
	// Of an npm lockfile each key holds what its project resolves: a bump
	// of what app depends on rebuilds app alone.
	lock := func(left string) string {
		return `{"lockfileVersion":3,"packages":{"":{"workspaces":["packages/*"]},` +
			`"packages/app":{"name":"@shop/app","dependencies":{"@shop/ui":"*","left":"^1.0.0"}},"packages/ui":{"name":"@shop/ui"},"packages/docs":{"name":"@shop/docs"},` +
			`"node_modules/@shop/ui":{"resolved":"packages/ui","link":true},"node_modules/left":{"version":"` + left + `"}}}`
	}
	writeFileAtomicAt(t, filepath.Join(repo, "package-lock.json"), lock("1.0.0"))
	mustCore(t, repo, nil, "run", "build")
	writeFileAtomicAt(t, filepath.Join(repo, "package-lock.json"), lock("1.0.1"))
	if r := mustCore(t, repo, nil, "run", "build"); !strings.Contains(r.Stderr, "✔ app:build") || strings.Count(r.Stderr, "(cached)") != 2 {
		t.Errorf("a bump of what app resolves did not rebuild app alone:\n%s", r.Stderr)
	}
	if r := mustCore(t, repo, nil, "hash", "app:build"); !strings.Contains(r.Stdout, " s  package-lock.json  (the part packages/app resolves)") {
		t.Errorf("core hash does not show app's part of the lockfile:\n%s", r.Stdout)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestAFunctionIsUsedByThePackagesThatImportItsPackageByName: packages
// import @acme/utils by name (its package.json main names an unbuilt
// dist/, its index re-exports the module declaring the function), so core
// query symbol:slugify lists them among its users.
func TestAFunctionIsUsedByThePackagesThatImportItsPackageByName(t *testing.T) {
	ws := t.TempDir()
	for path, content := range map[string]string{
		"targets.yaml":                  "projects:\n  utils: {path: packages/utils}\n  logger: {path: packages/logger}\n  ui: {path: packages/ui}\n",
		"package.json":                  `{"private":true,"workspaces":["packages/*"]}`,
		"packages/utils/package.json":   `{"name":"@acme/utils","main":"dist/index.js","types":"dist/index.d.ts"}`,
		"packages/utils/src/index.ts":   "export * from './strings';\n",
		"packages/utils/src/strings.ts": "export function slugify(s: string): string { return s.toLowerCase(); }\n",
		"packages/logger/package.json":  `{"name":"@acme/logger","exports":{".":{"types":"./dist/index.d.ts","import":"./dist/index.js"}},"dependencies":{"@acme/utils":"*"}}`,
		"packages/logger/src/index.ts":  "import { slugify } from '@acme/utils';\nexport function log(m: string) { console.log(slugify(m)); }\n",
		"packages/ui/package.json":      `{"name":"@acme/ui","main":"dist/index.js"}`,
		"packages/ui/src/button.tsx":    "import { slugify } from '@acme/utils';\nexport function Button(p: {label: string}) { return slugify(p.label); }\n",
	} {
		writeFileAtomicAt(t, filepath.Join(ws, path), content)
	}
	out := mustCore(t, ws, nil, "query", "symbol:slugify").Stdout
	for _, want := range []string{
		"packages/logger/src/index.ts uses slugify (packages/utils/src/strings.ts)",
		"packages/ui/src/button.tsx uses slugify (packages/utils/src/strings.ts)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("core query symbol:slugify does not say %q:\n%s", want, out)
		}
	}
}
