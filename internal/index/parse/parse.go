// Package parse turns one file of a workspace into its FileRecord: the
// package clause, imports, declarations and references of a Go,
// TypeScript, JavaScript or Python file, the title, links and mentions of a
// Markdown doc, the module of a go.mod or package.json. It is the bottom
// layer of package index, which finds the files, calls File on each,
// caches the records and assembles them into the graph; parse knows
// nothing of workspaces, caches or graphs.
package parse

import (
	"encoding/json"
	"path"

	"golang.org/x/mod/modfile"
)

// File parses one file by its language into its record.
func File(lang, p string, src []byte) FileRecord {
	var rec FileRecord
	switch lang {
	case LangGo:
		rec = parseGo(p, src)
	case LangTypeScript:
		rec = parseTypeScript(p, src)
	case LangJavaScript:
		if why := generatedJS(src); why != "" {
			rec = FileRecord{Diag: why}
		} else {
			rec = parseJavaScript(p, src)
		}
	case LangPython:
		rec = parsePython(p, src)
	case LangMarkdown:
		rec = parseMarkdown(p, src)
	case LangGoMod:
		rec = FileRecord{Path: p, Lang: lang, Module: modfile.ModulePath(src)}
		if rec.Module == "" {
			rec.Diag = "go.mod has no module line"
		}
	case LangPackageJSON:
		rec = parsePackageJSON(p, src)
	default:
		rec = FileRecord{Path: p, Lang: lang}
	}
	rec.Path, rec.Lang = p, lang
	return rec
}

func parsePackageJSON(p string, src []byte) FileRecord {
	rec := FileRecord{Path: p, Lang: LangPackageJSON}
	var pkg struct {
		Name    string          `json:"name"`
		Main    string          `json:"main"`
		Module  string          `json:"module"`
		Types   string          `json:"types"`
		Exports json.RawMessage `json:"exports"`
	}
	if err := json.Unmarshal(src, &pkg); err != nil {
		rec.Diag = "package.json does not parse: " + err.Error()
		return rec
	}
	rec.Module = pkg.Name
	var exp string
	if len(pkg.Exports) > 0 && json.Unmarshal(pkg.Exports, &exp) != nil {
		var m map[string]json.RawMessage
		if json.Unmarshal(pkg.Exports, &m) == nil {
			_ = json.Unmarshal(m["."], &exp)
		}
	}
	for _, e := range []string{exp, pkg.Module, pkg.Main, pkg.Types} {
		if e != "" {
			rec.Entry = path.Clean(e)
			break
		}
	}
	return rec
}
