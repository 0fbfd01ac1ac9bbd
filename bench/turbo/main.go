// Command turbo writes the npm-workspaces monorepo that bench/turbo.sh runs
// core and Turborepo on: N packages in a layered DAG whose edges live only
// in the package.json files (no deps in targets.yaml), one build script
// shared at the root, a shared config both tools treat as a global input,
// and a few packages that depend on one external package from the npm
// registry so that the lockfile has something in it.
//
//	turbo -out DIR [-n 200] [-seed 1] [-npm 11.19.1]
//
// Every package's build (node ../../build.js) checks that the packages it
// depends on are built first, does a little work (hash rounds over its
// sources) and writes dist/index.js.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// external is the registry package some packages depend on (the lockfile
// case of bench/turbo.sh moves its locked version within this range).
const external, externalRange = "ms", "^2.1.1"

func main() {
	out := flag.String("out", "", "the directory to write the workspace into (required)")
	n := flag.Int("n", 200, "packages")
	seed := flag.Uint64("seed", 1, "the DAG's seed")
	npm := flag.String("npm", "11.19.1", "the npm version for packageManager (turbo wants one)")
	flag.Parse()
	if *out == "" {
		log.Fatal("-out DIR is required")
	}
	r := rand.New(rand.NewPCG(*seed, 0))
	write := func(rel, content string) {
		p := filepath.Join(*out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	writeJSON := func(rel string, v any) {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			log.Fatal(err)
		}
		write(rel, string(b)+"\n")
	}

	writeJSON("package.json", map[string]any{
		"name": "turbo-bench", "private": true, "version": "0.0.0",
		"workspaces":     []string{"packages/*"},
		"packageManager": "npm@" + *npm,
	})
	write(".gitignore", "node_modules/\ndist/\n.turbo/\n.core/\n")
	write("build.js", buildJS)
	writeJSON("tsconfig.base.json", map[string]any{"compilerOptions": map[string]any{"target": "es2022", "strict": true}})
	writeJSON("turbo.json", map[string]any{
		"$schema":            "https://turborepo.com/schema.json",
		"globalDependencies": []string{"build.js", "tsconfig.base.json"},
		"tasks": map[string]any{
			"build": map[string]any{"dependsOn": []string{"^build"}, "outputs": []string{"dist/**"}},
		},
	})

	var targets strings.Builder
	targets.WriteString("# Written by bench/turbo: no project deps; core reads them from the package.json files.\n")
	targets.WriteString("global_inputs: [build.js, tsconfig.base.json]\nprojects:\n")
	for i := range *n {
		name := fmt.Sprintf("p%03d", i)
		deps := map[string]string{}
		// Up to three packages among the twenty before this one: a DAG
		// about ten layers deep, as real monorepos' are.
		if i > 0 {
			for range r.IntN(4) {
				j := max(0, i-20) + r.IntN(min(i, 20))
				deps[fmt.Sprintf("@bench/p%03d", j)] = "*"
			}
		}
		if i%10 == 3 {
			deps[external] = externalRange
		}
		writeJSON("packages/"+name+"/package.json", map[string]any{
			"name": "@bench/" + name, "version": "1.0.0", "private": true,
			"scripts":      map[string]string{"build": "node ../../build.js"},
			"dependencies": deps,
		})
		var src strings.Builder
		for k := range 40 {
			fmt.Fprintf(&src, "export function %s_f%d(x) {\n  return x * %d + %d;\n}\n\n", name, k, k+1, i)
		}
		write("packages/"+name+"/src/index.js", src.String())
		fmt.Fprintf(&targets, "  %s:\n    path: packages/%s\n    targets:\n      build:\n        run: [npm, run, build]\n        deps: [\"^build\"]\n        inputs: [\"src/**\"]\n        outputs: [dist/]\n", name, name)
	}
	write("targets.yaml", targets.String())
}

const buildJS = `// The build of every package (npm run build runs it in the package):
// its workspace dependencies must be built already, then some work, then
// dist/index.js.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
for (const dep of Object.keys(pkg.dependencies || {})) {
  if (!dep.startsWith('@bench/')) continue;
  const built = path.join('..', dep.slice('@bench/'.length), 'dist', 'index.js');
  if (!fs.existsSync(built)) {
    console.error(pkg.name + ': ' + dep + ' is not built yet (' + built + ')');
    process.exit(1);
  }
}
let src = '';
for (const f of fs.readdirSync('src').sort()) src += fs.readFileSync(path.join('src', f), 'utf8');
let h = src;
for (let i = 0; i < 2000; i++) h = crypto.createHash('sha256').update(h).digest('hex');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync(path.join('dist', 'index.js'), '// ' + h + '\n' + src);
console.log(pkg.name + ' built');
`
