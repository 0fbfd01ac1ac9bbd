package insight

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/corehq/core/internal/graph"
	"github.com/corehq/core/internal/inputs"
	"github.com/corehq/core/internal/workspace"
)

// The kinds of file the hotspots lens leaves out unless asked: nobody
// refactors a lockfile, a generated file or vendored code, and a doc's
// indentation is not complexity. They change often and are long, so on a
// real repository they used to lead the list (package-lock.json,
// README.md, BENCHMARKS.md) and hide the code that is hard to change.
const (
	Lockfiles = "lockfiles"
	Generated = "generated"
	Vendored  = "vendored"
	Docs      = "docs"
)

// LeftOutKinds are the kinds Params.Include names, in the order an answer
// lists them.
var LeftOutKinds = []string{Lockfiles, Generated, Vendored, Docs}

// lockNames are lockfiles by name that no suffix rule below catches.
var lockNames = map[string]bool{
	"go.sum": true, "go.work.sum": true, "npm-shrinkwrap.json": true, "pnpm-lock.yaml": true, "bun.lockb": true,
	"Pipfile.lock": true, "packages.lock.json": true, "gradle.lockfile": true, "pubspec.lock": true,
}

// vendorDirs are directories of code a project carries but does not write
// (Linguist's vendor list, the common part).
var vendorDirs = []string{"vendor", "node_modules", "third_party", "third-party", "bower_components", "Godeps", ".yarn"}

// generatedSuffixes name generated files by convention (protobuf and gRPC
// stubs, go generate's, minified bundles and their maps).
var generatedSuffixes = []string{".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", "_pb.js", "_pb.ts", "_pb.d.ts", ".pb.ts", "_gen.go", ".gen.go", ".min.js", ".min.css", ".js.map", ".css.map"}

var docExts = map[string]bool{".md": true, ".markdown": true, ".rst": true, ".txt": true, ".adoc": true}

// docNames are documents without an extension.
var docNames = map[string]bool{"LICENSE": true, "LICENCE": true, "COPYING": true, "NOTICE": true, "AUTHORS": true, "CHANGELOG": true, "CONTRIBUTORS": true}

// kindByPath says which left-out kind a path is by its name alone ("" for
// none): lockfiles, vendored code, generated files by convention, docs.
// Files that name themselves generated, and the outputs targets.yaml
// declares, are found elsewhere (kindOf).
func kindByPath(p string) string {
	base := path.Base(p)
	switch {
	case lockNames[base], strings.HasSuffix(base, ".lock"), strings.HasSuffix(base, "-lock.json"), strings.HasSuffix(base, "-lock.yaml"):
		return Lockfiles
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if slices.Contains(vendorDirs, d) {
			return Vendored
		}
	}
	for _, s := range generatedSuffixes {
		if strings.HasSuffix(base, s) {
			return Generated
		}
	}
	if strings.HasPrefix(base, "zz_generated") {
		return Generated
	}
	if docExts[strings.ToLower(path.Ext(base))] || docNames[strings.TrimSuffix(base, path.Ext(base))] {
		return Docs
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		if d == "docs" || d == "doc" {
			return Docs
		}
	}
	return ""
}

// Generated files by their content: Go's convention ("// Code generated
// ... DO NOT EDIT."), the "@generated" marker of Facebook's tools, both in
// the first lines; and minified code, whose lines average over 110
// characters in a file of 4 KiB or more (Linguist's line, which the index
// draws too: internal/index/parse/generated.go).
const (
	markerWindow       = 1 << 10
	minifiedMinSize    = 4 << 10
	minifiedLineLength = 110
)

// generatedContent reports whether a file's bytes say it is generated.
func generatedContent(data []byte) bool {
	head := data[:min(len(data), markerWindow)]
	if bytes.Contains(head, []byte("@generated")) {
		return true
	}
	if i := bytes.Index(head, []byte("Code generated ")); i >= 0 && bytes.Contains(head[i:], []byte("DO NOT EDIT")) {
		return true
	}
	if len(data) >= minifiedMinSize {
		lines := bytes.Count(data, []byte{'\n'})
		if data[len(data)-1] != '\n' {
			lines++
		}
		return len(data)/lines > minifiedLineLength
	}
	return false
}

// kindOf is the left-out kind of a file ("" when the lens counts it): by
// its path, as an output that targets.yaml declares, or by its content
// (measured with its complexity). e.mu is held.
func (e *Engine) kindOf(ws *workspace.Workspace, owners *graph.Owners, p string, generatedBytes bool) string {
	if k := kindByPath(p); k != "" {
		return k
	}
	if generatedBytes {
		return Generated
	}
	if pr := owners.Of(p); pr != nil {
		rel := p
		if pr.Path != "." {
			rel = strings.TrimPrefix(p, pr.Path+"/")
		}
		for _, t := range pr.Targets {
			if inputs.OutputMatch(t, rel) {
				return Generated
			}
		}
	}
	return ""
}

// LeftOut is one kind of file the hotspots lens left out: how many files
// of that kind changed in the window, and the most changed of them.
type LeftOut struct {
	Kind  string   `json:"kind"`
	Files int      `json:"files"`
	Top   []string `json:"top"` // at most 3, the most changed first
}

// parseInclude reads include= values: kinds of LeftOutKinds, or "all".
func parseInclude(list []string) ([]string, error) {
	var out []string
	for _, k := range list {
		k = strings.TrimSpace(k)
		switch {
		case k == "":
		case k == "all":
			return slices.Clone(LeftOutKinds), nil
		case slices.Contains(LeftOutKinds, k):
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		default:
			return nil, &ParamError{Msg: fmt.Sprintf("include %q is not a kind of file: %s, or all", k, strings.Join(LeftOutKinds, ", "))}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(LeftOutKinds, a) - slices.Index(LeftOutKinds, b) })
	return out, nil
}

// leftOutNote says in one sentence what the lens left out and how to
// include it (the route's parameter and the CLI's flag).
func leftOutNote(left []LeftOut) string {
	if len(left) == 0 {
		return ""
	}
	singular := map[string]string{Lockfiles: "lockfile", Generated: "generated file", Vendored: "vendored file", Docs: "doc"}
	plural := map[string]string{Lockfiles: "lockfiles", Generated: "generated files", Vendored: "vendored files", Docs: "docs"}
	var parts, kinds []string
	for _, l := range left {
		what := plural[l.Kind]
		if l.Files == 1 {
			what = singular[l.Kind]
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", l.Files, what, strings.Join(l.Top, ", ")))
		kinds = append(kinds, l.Kind)
	}
	list := strings.Join(kinds, ",")
	return fmt.Sprintf("left out: %s; include them with include=%s (core insight --include %s)", strings.Join(parts, "; "), list, list)
}
