package parse

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/manifest"
)

func TestAPackageJSONsExportsAreMappedInTheOrderToTryThem(t *testing.T) {
	for _, c := range []struct {
		name, src string
		maps      []string
		entry     string
	}{
		{"main alone", `{"name":"@a/b","main":"dist/index.js"}`, nil, "dist/index.js"},
		{"exports as a string", `{"exports":"./dist/index.js","main":"x.js"}`, []string{".\tdist/index.js"}, "dist/index.js"},
		{"exports as conditions: source and types before a build", `{"exports":{"require":"./dist/i.cjs","import":"./dist/i.mjs","types":"./dist/i.d.ts"}}`,
			[]string{".\tdist/i.d.ts", ".\tdist/i.mjs", ".\tdist/i.cjs"}, "dist/i.d.ts"},
		{"subpaths with nested conditions and fallbacks", `{"exports":{".":{"node":{"import":"./n.mjs"},"default":"./d.js"},"./sub/*":["./dist/sub/*.js"],"./x":null}}`,
			[]string{".\tn.mjs", ".\td.js", "./sub/*\tdist/sub/*.js"}, "n.mjs"},
		{"targets outside the package or not ./ are dropped", `{"exports":{".":"../other/index.js","./a":"a.js","./b":"./../../b.js"},"module":"m.js"}`, nil, "m.js"},
		{"not JSON", `{"name":`, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := File(LangPackageJSON, "p/package.json", []byte(c.src))
			if !slices.Equal(rec.Maps, c.maps) || rec.Entry != c.entry {
				t.Errorf("maps %q entry %q, want %q %q", rec.Maps, rec.Entry, c.maps, c.entry)
			}
		})
	}
}

func TestATSConfigsPathsAreRelativeToTheWorkspaceRoot(t *testing.T) {
	for _, c := range []struct {
		name, file, src string
		maps            []string
		extends         string
	}{
		{"baseUrl and paths, with comments and trailing commas", "tsconfig.base.json",
			"{\n// c\n\"compilerOptions\": {\"baseUrl\": \"./src\", /* x */ \"paths\": {\"@a/*\": [\"libs/*/src\", \"vendor/*\",], \"@b\": [\"b/index.ts\"],},},}",
			[]string{"@a/*\tsrc/libs/*/src", "@a/*\tsrc/vendor/*", "@b\tsrc/b/index.ts"}, ""},
		{"paths without baseUrl are relative to the config", "apps/web/tsconfig.json",
			`{"extends": "../../tsconfig.base", "compilerOptions": {"paths": {"~/*": ["./src/*"]}}}`,
			[]string{"~/*\tapps/web/src/*"}, "tsconfig.base.json"},
		{"extends a list: the last relative one", "a/tsconfig.json", `{"extends": ["@tsconfig/node20/tsconfig.json", "./strict.json"]}`, nil, "a/strict.json"},
		{"extends a package", "a/tsconfig.json", `{"extends": "@tsconfig/node20/tsconfig.json"}`, nil, ""},
		{"nothing outside the workspace", "a/tsconfig.json", `{"extends": "../../x.json", "compilerOptions": {"paths": {"x": ["../../x.ts", "/abs.ts"]}}}`, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := File(LangTSConfig, c.file, []byte(c.src))
			if rec.Diag != "" || !slices.Equal(rec.Maps, c.maps) || rec.Extends != c.extends {
				t.Errorf("maps %q extends %q diag %q, want %q %q", rec.Maps, rec.Extends, rec.Diag, c.maps, c.extends)
			}
		})
	}
}

func FuzzManifests(f *testing.F) {
	for _, s := range []string{
		`{"name":"@a/b","exports":{".":{"import":"./x.js"},"./*":["./dist/*.js"]}}`,
		`{"compilerOptions":{"baseUrl":".","paths":{"@a/*":["p/*"]}},"extends":"./b",}`,
		"// c\n{\"a\": [1, /* x */ 2,],}", `"\\"`, `{"exports":[[[[[[[[[["./a"]]]]]]]]]]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out := manifest.StripJSONC(src)
		if len(out) > len(src) {
			t.Fatalf("StripJSONC grew %d bytes to %d", len(src), len(out))
		}
		if json.Valid(src) && !bytes.Contains(src, []byte("/")) && !bytes.Equal(out, src) {
			// Without comments, valid JSON (no trailing commas) is kept.
			t.Fatalf("StripJSONC changed valid JSON %q into %q", src, out)
		}
		for _, lang := range []string{LangPackageJSON, LangTSConfig} {
			rec := File(lang, "a/b/tsconfig.json", src)
			if len(rec.Maps) > maxMaps {
				t.Fatalf("%s: %d maps", lang, len(rec.Maps))
			}
			if e := rec.Entry; path.IsAbs(e) || e == ".." || strings.HasPrefix(e, "../") {
				t.Fatalf("%s: the entry leaves the package: %q", lang, e)
			}
			for _, m := range append(rec.Maps, rec.Extends) {
				if len(m) > 3*maxMapLen {
					t.Fatalf("%s: %d bytes", lang, len(m))
				}
				if _, to, _ := strings.Cut(m, "\t"); path.IsAbs(to) || to == ".." || strings.HasPrefix(to, "../") {
					t.Fatalf("%s: a map leaves the workspace: %q", lang, m)
				}
			}
		}
	})
}
