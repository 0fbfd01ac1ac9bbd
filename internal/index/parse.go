package index

import (
	"encoding/json"
	"path"

	"golang.org/x/mod/modfile"
)

// Parse indexes one file by its language.
func Parse(lang, p string, src []byte) FileRecord {
	var rec FileRecord
	switch lang {
	case LangGo:
		rec = ParseGo(p, src)
	case LangTypeScript:
		rec = ParseTypeScript(p, src)
	case LangJavaScript:
		rec = ParseJavaScript(p, src)
	case LangPython:
		rec = ParsePython(p, src)
	case LangMarkdown:
		rec = ParseMarkdown(p, src)
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
