package parse

// Languages a record can be in.
const (
	LangGo         = "go"
	LangTypeScript = "typescript"
	LangJavaScript = "javascript"
	LangPython     = "python"
	LangMarkdown   = "markdown"
)

// Special files that are not graph nodes but feed resolution.
const (
	LangGoMod       = "gomod"
	LangPackageJSON = "packagejson"
	LangTSConfig    = "tsconfig" // tsconfig.json, tsconfig.*.json, jsconfig.json
)

// FileRecord is what parsing one file yields.
type FileRecord struct {
	Path    string // slash-separated, relative to the workspace root
	Size    int64
	ModTime int64 // Unix nanoseconds
	Lang    string

	// Package is the Go package name (package clause); empty elsewhere.
	Package string
	// Default is the name of the declaration a JS/TS file exports as
	// default, which `import x from` refers to.
	Default string
	Imports []Import
	// Symbols and Refs belong in the project's @symbols shard; the
	// in-memory record drops them once the shard is written.
	Symbols []Symbol
	Refs    []Ref

	// Markdown only.
	Title    string
	Links    []string // link targets as written, fragments and queries removed
	Mentions []string // "project:target" strings found in the text

	// go.mod: the module path; package.json: the package name.
	Module string
	// package.json: the entry file (main, module or exports "."), relative
	// to the package directory.
	Entry string
	// Maps are "from\tto" pairs, most preferred first. package.json: its
	// exports, from a subpath ("." or "./sub", with at most one "*") to a
	// file relative to the package directory. tsconfig: its
	// compilerOptions.paths, from a pattern to a path relative to the
	// workspace root (its baseUrl applied).
	Maps []string
	// tsconfig: the config file it extends, relative to the workspace root
	// ("" for none, or one from a package).
	Extends string
	// tsconfig: its compilerOptions.baseUrl relative to the workspace root,
	// "" when it sets none. The nearest baseUrl in a chain of extends is
	// the one every inherited path is relative to, as in tsc.
	BaseURL string

	// Diag says why the file could not be (fully) parsed; the file is still
	// indexed.
	Diag string
}

// Import is one import statement.
type Import struct {
	Path  string // as written: a Go import path, a JS specifier, a Python module
	Alias string // Go: the local name if renamed; "_" and "." kept as written
	// Names are the names taken from the imported file, as it exports
	// them: a JS `import {a, b}` or `export {a, b} from`, the members a JS
	// namespace import uses (ns.a), a Python `from m import a, b`; they
	// resolve to symbols of the imported file. ["*"] is a JS `export *
	// from`, which offers every name of its source.
	Names []string
	// As are the names a JS `export {a as b} from` offers each of Names
	// under, "" for one not renamed; nil when none is.
	As   []string
	Line int
}

// ReexportsAll is the Names of a JS `export * from`.
const ReexportsAll = "*"

// Symbol is a declaration.
type Symbol struct {
	Name string // methods are "Type.Method"
	Kind string // func, method, type, const, var, class, function
	Line int
	Col  int
}

// MemberQual marks a Ref to a member of an expression that is not a plain
// identifier.
const MemberQual = "*"

// Ref is a use of a name, from inside a declaration of this file (From, the
// symbol's name) or from file level (From empty).
type Ref struct {
	From string
	// Qual is the identifier the name was selected from (Go `pkg.Name` or
	// `value.Method`), MemberQual for a member of any other expression, and
	// empty for a bare name of the file's own package.
	Qual string
	Name string
	Line int
}
