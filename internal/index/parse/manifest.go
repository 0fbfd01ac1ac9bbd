package parse

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/corehq/core/internal/manifest"
)

// A manifest is input from outside: what it may add to resolution is
// bounded.
const (
	maxMaps     = 512  // Maps entries of one file
	maxMapLen   = 1024 // bytes of one from or to
	maxCondDeep = 8    // nesting of export conditions
)

// conditionOrder is the order in which the conditions of an exports entry
// are tried: what names source before what names a build, whose output
// is seldom indexed (the resolver maps a build path back to src/ too).
var conditionOrder = []string{"source", "types", "typescript", "development", "import", "module", "browser", "node", "require", "default"}

func parsePackageJSON(p string, src []byte) FileRecord {
	rec := FileRecord{Path: p, Lang: LangPackageJSON}
	pkg, err := manifest.ParsePackage(src)
	if err != nil {
		rec.Diag = "package.json does not parse: " + err.Error()
		return rec
	}
	if len(pkg.Name) <= maxMapLen {
		rec.Module = pkg.Name
	}
	rec.Maps = exportMaps(pkg.Exports)
	var exp string
	for _, m := range rec.Maps {
		if from, to, _ := strings.Cut(m, "\t"); from == "." {
			exp = to
			break
		}
	}
	for _, e := range []string{exp, pkg.Module, pkg.Main, pkg.Types} {
		if c := path.Clean(e); e != "" && len(e) <= maxMapLen && !path.IsAbs(c) && c != ".." && !strings.HasPrefix(c, "../") {
			rec.Entry = c
			break
		}
	}
	return rec
}

// exportMaps flattens a package.json's exports: a string or an array (the
// package itself), an object of conditions (the package itself), or an
// object of subpaths ("." and "./..."), each a target, an array of
// fallbacks or an object of conditions.
func exportMaps(raw json.RawMessage) []string {
	var out []string
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || len(obj) == 0 {
		return appendTargets(out, ".", raw, 0)
	}
	subpaths := false
	for k := range obj {
		if strings.HasPrefix(k, ".") {
			subpaths = true
			break
		}
	}
	if !subpaths {
		return appendTargets(out, ".", raw, 0)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if k == "." || strings.HasPrefix(k, "./") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		out = appendTargets(out, k, obj[k], 0)
	}
	return out
}

// appendTargets adds the targets of one exports entry, in the order to
// try them.
func appendTargets(out []string, from string, raw json.RawMessage, depth int) []string {
	if depth > maxCondDeep || len(out) >= maxMaps || len(from) > maxMapLen {
		return out
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		// Node accepts only targets inside the package: "./...".
		if t := path.Clean(s); strings.HasPrefix(s, "./") && len(s) <= maxMapLen && t != ".." && !strings.HasPrefix(t, "../") {
			out = append(out, from+"\t"+t)
		}
		return out
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for _, v := range list {
			out = appendTargets(out, from, v, depth+1)
		}
		return out
	}
	var conds map[string]json.RawMessage
	if json.Unmarshal(raw, &conds) != nil {
		return out
	}
	for _, c := range conditionOrder {
		if v, ok := conds[c]; ok {
			out = appendTargets(out, from, v, depth+1)
		}
	}
	rest := make([]string, 0, len(conds))
	for c := range conds {
		if !slices.Contains(conditionOrder, c) {
			rest = append(rest, c)
		}
	}
	slices.Sort(rest)
	for _, c := range rest {
		out = appendTargets(out, from, conds[c], depth+1)
	}
	return out
}

// IsTSConfig reports whether a file name is a TypeScript (or JavaScript)
// project configuration: tsconfig.json, tsconfig.*.json, jsconfig.json.
func IsTSConfig(name string) bool {
	return name == "tsconfig.json" || name == "jsconfig.json" ||
		(strings.HasPrefix(name, "tsconfig.") && strings.HasSuffix(name, ".json"))
}

func parseTSConfig(p string, src []byte) FileRecord {
	rec := FileRecord{Path: p, Lang: LangTSConfig}
	cfg, err := manifest.ParseTSConfig(src)
	if err != nil {
		rec.Diag = path.Base(p) + " does not parse: " + err.Error()
		return rec
	}
	dir := path.Dir(p)
	inside := func(rel string) (string, bool) {
		if len(rel) > maxMapLen || path.IsAbs(rel) {
			return "", false
		}
		j := path.Join(dir, rel)
		return j, j != ".." && !strings.HasPrefix(j, "../")
	}
	base, ok := inside(cfg.CompilerOptions.BaseURL)
	if !ok {
		return rec
	}
	if cfg.CompilerOptions.BaseURL != "" {
		rec.BaseURL = base
	}
	patterns := make([]string, 0, len(cfg.CompilerOptions.Paths))
	for k := range cfg.CompilerOptions.Paths {
		if len(k) <= maxMapLen && strings.Count(k, "*") <= 1 {
			patterns = append(patterns, k)
		}
	}
	slices.Sort(patterns)
	for _, pat := range patterns {
		for _, t := range cfg.CompilerOptions.Paths[pat] {
			if len(rec.Maps) >= maxMaps {
				break
			}
			if len(t) > maxMapLen || path.IsAbs(t) || strings.Count(t, "*") > 1 {
				continue
			}
			if j := path.Join(base, t); j != ".." && !strings.HasPrefix(j, "../") {
				rec.Maps = append(rec.Maps, pat+"\t"+j)
			}
		}
	}
	// extends: the last one winning; a package's config is not in the
	// workspace.
	ext := cfg.Extends
	for i := len(ext) - 1; i >= 0; i-- {
		e := ext[i]
		if !strings.HasPrefix(e, "./") && !strings.HasPrefix(e, "../") {
			continue
		}
		if !strings.HasSuffix(e, ".json") {
			e += ".json"
		}
		if j, ok := inside(e); ok {
			rec.Extends = j
		}
		break
	}
	return rec
}
