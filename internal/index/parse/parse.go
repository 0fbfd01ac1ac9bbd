// Package parse turns one file of a workspace into its FileRecord: the
// package clause, imports, declarations and references of a Go,
// TypeScript, JavaScript or Python file, the title, links and mentions of a
// Markdown doc, the module of a go.mod or package.json, the path mappings
// of a package.json's exports or a tsconfig.json's paths. It is the bottom
// layer of package index, which finds the files, calls File on each,
// caches the records and assembles them into the graph; parse knows
// nothing of workspaces, caches or graphs.
package parse

import (
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
	case LangTSConfig:
		rec = parseTSConfig(p, src)
	default:
		rec = FileRecord{Path: p, Lang: lang}
	}
	rec.Path, rec.Lang = p, lang
	return rec
}
