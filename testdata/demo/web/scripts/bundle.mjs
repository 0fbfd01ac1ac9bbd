// A stand-in for a real bundler that needs no npm packages: it reads every
// module under src/, checks that each relative import resolves to a file,
// and writes dist/manifest.json with the import graph.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const src = "src";
const importRe = /^\s*import\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']/gm;

function modules(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? modules(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

const manifest = {};
const broken = [];
for (const file of modules(src).sort()) {
  const imports = [];
  for (const m of readFileSync(file, "utf8").matchAll(importRe)) {
    const target = join(dirname(file), m[1]) + ".ts";
    if (!existsSync(target)) broken.push(`${file}: cannot resolve ${m[1]}`);
    imports.push(relative(src, target));
  }
  manifest[relative(src, file)] = imports;
}

if (broken.length > 0) {
  console.error(broken.join("\n"));
  process.exit(1);
}
mkdirSync("dist", { recursive: true });
writeFileSync(join("dist", "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`bundled ${Object.keys(manifest).length} modules`);
