package index

import (
	"testing"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/index/parse"
)

// jsWorkspace is an npm-workspaces monorepo whose packages import each
// other by name: through a package.json's main (a build output, not
// built), its exports (conditions, subpaths, a pattern), TypeScript paths
// in a tsconfig another extends (relative to the extending project's own
// baseUrl, as tsc reads them), and a baseUrl; by name, as a namespace and
// through renamed re-exports.
var jsWorkspace = map[string]string{
	"targets.yaml": `projects:
  utils: {path: packages/utils}
  logger: {path: packages/logger}
  ui: {path: packages/ui}
  web: {path: apps/web}
  admin: {path: apps/admin}
`,
	"package.json": `{"private": true, "workspaces": ["packages/*", "apps/*"]}`,
	"tsconfig.base.json": `{
  // shared by every package
  "compilerOptions": {
    "baseUrl": ".",
    "paths": {
      "@acme/ui": ["packages/ui/src/index.tsx"],
      "@acme/utils/*": ["packages/utils/src/*"], /* subpaths */
      "@shared/*": ["shared/*"],
    },
  },
}`,
	"packages/utils/package.json":        `{"name": "@acme/utils", "main": "dist/index.js", "types": "dist/index.d.ts"}`,
	"packages/utils/src/index.ts":        "export * from './strings';\nexport { clamp } from './numbers';\nexport { clamp as bound, default as Color } from './numbers';\n",
	"packages/utils/src/strings.ts":      "export function slugify(s: string): string { return s.toLowerCase(); }\n",
	"packages/utils/src/numbers.ts":      "export function clamp(n: number): number { return n; }\nexport function unexported(): number { return 0; }\nexport default class Hue {}\n",
	"packages/utils/src/side.ts":         "import './strings';\nexport const side = 1;\n",
	"packages/logger/package.json":       `{"name": "@acme/logger", "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.mjs", "require": "./dist/index.cjs"}, "./format/*": "./dist/format/*.js"}}`,
	"packages/logger/src/index.ts":       "import { slugify, clamp } from '@acme/utils';\nexport function log(m: string) { return slugify(m) + clamp(1); }\n",
	"packages/logger/src/format/json.ts": "export function asJSON(m: string) { return m; }\n",
	"packages/ui/package.json":           `{"name": "@acme/ui", "exports": "./dist/index.js"}`,
	"packages/ui/src/index.tsx":          "import { slugify } from '@acme/utils';\nimport { log } from '@acme/logger';\nimport { bound, Color } from '@acme/utils';\nexport function Button() { log(slugify('x')); }\n",
	"packages/ui/src/panel.ts":           "import * as utils from '@acme/utils';\nexport const p: utils.Options = utils.slugify('');\n",
	"packages/utils/src/sidecar.ts":      "import * as side from './side';\nexport const q = side.slugify;\n",
	"shared/log.ts":                      "export function note() {}\n",
	"apps/admin/tsconfig.json":           `{"extends": "../../tsconfig.base.json", "compilerOptions": {"baseUrl": "."}}`,
	"apps/admin/shared/log.ts":           "export function note() {}\n",
	"apps/admin/src/main.ts":             "import { note } from '@shared/log';\nimport { helper } from 'src/helper';\nexport function main() { note(); helper(); }\n",
	"apps/admin/src/helper.ts":           "export function helper() {}\n",
	"apps/web/tsconfig.json":             `{"extends": "../../tsconfig.base.json", "compilerOptions": {"outDir": "dist"}}`,
	"apps/web/package.json":              `{"name": "@acme/web"}`,
	"apps/web/src/main.ts":               "import { Button } from '@acme/ui';\nimport { note } from '@shared/log';\nimport { slugify } from '@acme/utils/strings';\nimport { asJSON } from '@acme/logger/format/json';\nimport React from 'react';\nimport { nothing } from '@acme/absent';\nexport function main() { Button(); slugify(asJSON('')); }\n",
}

func TestWorkspacePackageImportsResolveToTheFilesTheyName(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, jsWorkspace)
	ix := New(root, t.TempDir(), Options{})
	g := syncIndex(t, ix, root)
	for _, c := range []struct {
		how, from, to string
	}{
		{"main names an unbuilt dist/: its source in src/", "packages/logger/src/index.ts", "packages/utils/src/index.ts"},
		{"exports as a string", "packages/ui/src/index.tsx", "packages/utils/src/index.ts"},
		{"exports with conditions", "packages/ui/src/index.tsx", "packages/logger/src/index.ts"},
		{"tsconfig paths, exact, from a config extended", "apps/web/src/main.ts", "packages/ui/src/index.tsx"},
		{"tsconfig paths with a *", "apps/web/src/main.ts", "packages/utils/src/strings.ts"},
		{"an exports subpath pattern", "apps/web/src/main.ts", "packages/logger/src/format/json.ts"},
		{"tsconfig paths inherited, relative to the base's baseUrl", "apps/web/src/main.ts", "shared/log.ts"},
		{"tsconfig paths inherited, relative to the project's own baseUrl", "apps/admin/src/main.ts", "apps/admin/shared/log.ts"},
		{"a bare specifier under the baseUrl", "apps/admin/src/main.ts", "apps/admin/src/helper.ts"},
	} {
		t.Run(c.how, func(t *testing.T) {
			if !hasEdge(g, FileID(c.from), FileID(c.to), graph.EdgeImports) {
				t.Errorf("%s does not import %s", c.from, c.to)
			}
		})
	}
	t.Run("a package outside the workspace stays external", func(t *testing.T) {
		if !hasEdge(g, FileID("apps/web/src/main.ts"), PackageID("react"), graph.EdgeImports) {
			t.Error("react is not an external package")
		}
	})
	t.Run("the packages depend on what they import", func(t *testing.T) {
		for _, pair := range [][2]string{{"logger", "utils"}, {"ui", "logger"}, {"web", "ui"}} {
			if !hasEdge(g, graph.ProjectID(pair[0]), graph.ProjectID(pair[1]), graph.EdgeDependsInferred) {
				t.Errorf("no inferred dependency of %s on %s", pair[0], pair[1])
			}
		}
	})

	s, err := ix.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		how, from, symbol string
	}{
		{"through the package's export *", "packages/logger/src/index.ts", "packages/utils/src/strings.ts#slugify"},
		{"through the package's export {name} from", "packages/logger/src/index.ts", "packages/utils/src/numbers.ts#clamp"},
		{"from another package", "packages/ui/src/index.tsx", "packages/utils/src/strings.ts#slugify"},
		{"through tsconfig paths", "apps/web/src/main.ts", "packages/utils/src/strings.ts#slugify"},
		{"through a renamed re-export", "packages/ui/src/index.tsx", "packages/utils/src/numbers.ts#clamp"},
		{"through a default re-exported under a name", "packages/ui/src/index.tsx", "packages/utils/src/numbers.ts#Hue"},
		{"as a member of a namespace import", "packages/ui/src/panel.ts", "packages/utils/src/strings.ts#slugify"},
	} {
		t.Run("a use of a symbol of another package resolves "+c.how, func(t *testing.T) {
			if !hasEdge(s, FileID(c.from), "symbol:"+c.symbol, graph.EdgeReferences) {
				t.Errorf("%s does not reference %s", c.from, c.symbol)
			}
		})
	}
	t.Run("a side-effect import does not re-export its names", func(t *testing.T) {
		if !hasEdge(g, FileID("packages/utils/src/sidecar.ts"), FileID("packages/utils/src/side.ts"), graph.EdgeImports) {
			t.Fatal("sidecar does not import side.ts")
		}
		if hasEdge(s, FileID("packages/utils/src/sidecar.ts"), "symbol:packages/utils/src/strings.ts#slugify", graph.EdgeReferences) {
			t.Error("side.ts's import './strings' offers slugify")
		}
	})
	t.Run("a name the package does not re-export stays unresolved", func(t *testing.T) {
		for _, e := range s.Edges {
			if e.Target == "symbol:packages/utils/src/numbers.ts#unexported" && e.Kind == graph.EdgeReferences {
				t.Errorf("%+v", e)
			}
		}
	})
}

func TestEachDirectoryHasTheConfigNearestAboveIt(t *testing.T) {
	configs := map[string]*parse.FileRecord{}
	for _, p := range []string{"tsconfig.json", "apps/web/tsconfig.json", "-odd/jsconfig.json", "libs/tsconfig.json", "libs/jsconfig.json"} {
		configs[p] = &parse.FileRecord{Path: p, Lang: parse.LangTSConfig}
	}
	dirs := map[string]bool{".": true, "apps": true, "apps/web": true, "apps/web/src": true, "-odd": true, "-odd/x": true, "libs": true, "libs/a": true}
	near := nearestConfigs(dirs, configs)
	for dir, want := range map[string]string{
		".": "tsconfig.json", "apps": "tsconfig.json", "apps/web": "apps/web/tsconfig.json", "apps/web/src": "apps/web/tsconfig.json",
		"-odd": "-odd/jsconfig.json", "-odd/x": "-odd/jsconfig.json", "libs/a": "libs/tsconfig.json",
	} {
		if got := near[dir]; got == nil || got.Path != want {
			t.Errorf("%s: %v, want %s", dir, got, want)
		}
	}
}
