package parse

import (
	"slices"
	"testing"
)

const goSrc = `package server

import (
	"fmt"
	cfg "example.com/demo/libs/config"
	"example.com/demo/libs/util"
)

// Server serves.
type Server struct{ Name string }

type List[T any] struct{ items []T }

const Version = "1"

var (
	defaultName = util.Slug("x")
	_           = 3
)

func New(c cfg.Config) *Server {
	s := &Server{Name: defaultName}
	fmt.Println(Version, c.Port)
	return s
}

func (s *Server) Run() error { return helper(s) }

func (l *List[T]) Len() int { return len(l.items) }

func helper(s *Server) error { return nil }
`

func TestParseGo(t *testing.T) {
	rec := parseGo("services/api/server.go", []byte(goSrc))
	t.Run("the package clause is recorded", func(t *testing.T) {
		if rec.Package != "server" || rec.Diag != "" {
			t.Fatalf("package %q diag %q", rec.Package, rec.Diag)
		}
	})
	t.Run("imports keep their alias", func(t *testing.T) {
		want := []Import{{Path: "fmt", Line: 4}, {Path: "example.com/demo/libs/config", Alias: "cfg", Line: 5}, {Path: "example.com/demo/libs/util", Line: 6}}
		if !slices.EqualFunc(rec.Imports, want, func(a, b Import) bool { return a.Path == b.Path && a.Alias == b.Alias && a.Line == b.Line }) {
			t.Fatalf("imports = %+v", rec.Imports)
		}
	})
	t.Run("top-level declarations are symbols and methods are Type.Method", func(t *testing.T) {
		var names []string
		for _, s := range rec.Symbols {
			names = append(names, s.Kind+" "+s.Name)
		}
		want := []string{"type Server", "type List", "const Version", "var defaultName", "func New", "method Server.Run", "method List.Len", "func helper"}
		if !slices.Equal(names, want) {
			t.Fatalf("symbols = %v", names)
		}
	})
	has := func(r Ref) bool {
		for _, x := range rec.Refs {
			if x.From == r.From && x.Qual == r.Qual && x.Name == r.Name {
				return true
			}
		}
		return false
	}
	t.Run("a qualified use keeps its qualifier", func(t *testing.T) {
		if !has(Ref{From: "New", Qual: "cfg", Name: "Config"}) || !has(Ref{From: "defaultName", Qual: "util", Name: "Slug"}) {
			t.Fatalf("refs = %+v", rec.Refs)
		}
	})
	t.Run("a same-package use is a bare name", func(t *testing.T) {
		if !has(Ref{From: "Server.Run", Name: "helper"}) || !has(Ref{From: "New", Name: "defaultName"}) || !has(Ref{From: "New", Name: "Version"}) {
			t.Fatalf("refs = %+v", rec.Refs)
		}
	})
	t.Run("field names and selected members are not uses", func(t *testing.T) {
		if has(Ref{From: "New", Name: "Name"}) || has(Ref{From: "New", Name: "Port"}) || has(Ref{From: "Server", Name: "Name"}) {
			t.Fatalf("refs = %+v", rec.Refs)
		}
	})
	t.Run("predeclared names are not uses", func(t *testing.T) {
		if has(Ref{From: "List.Len", Name: "len"}) || has(Ref{From: "Server.Run", Name: "error"}) {
			t.Fatalf("refs = %+v", rec.Refs)
		}
	})
}

func TestAnUnparsableGoFileKeepsWhatParsed(t *testing.T) {
	rec := parseGo("x.go", []byte("package x\n\nfunc Good() {}\n\nfunc Bad( {\n"))
	if rec.Diag == "" || rec.Package != "x" {
		t.Fatalf("diag %q package %q", rec.Diag, rec.Package)
	}
	if len(rec.Symbols) == 0 || rec.Symbols[0].Name != "Good" {
		t.Fatalf("symbols = %+v", rec.Symbols)
	}
}

func FuzzParseGo(f *testing.F) {
	f.Add([]byte(goSrc))
	f.Add([]byte("package x\nfunc (\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		rec := parseGo("f.go", src)
		if rec.Path != "f.go" || rec.Lang != LangGo {
			t.Fatal("record lost its identity")
		}
	})
}

func TestALocalNameIsNoReference(t *testing.T) {
	rec := parseGo("x.go", []byte("package x\n\nfunc helper() {}\n\nfunc F(helper int) int {\n\tfor _, v := range []int{helper} {\n\t\tprefix := v\n\t\t_ = prefix\n\t}\n\treturn helper\n}\n\nvar prefix = 1\n\nfunc G() { helper(); _ = prefix }\n"))
	for _, r := range rec.Refs {
		if r.From == "F" && (r.Name == "helper" || r.Name == "prefix" || r.Name == "v") {
			t.Errorf("F's local %s was taken for a reference", r.Name)
		}
	}
	found := 0
	for _, r := range rec.Refs {
		if r.From == "G" && (r.Name == "helper" || r.Name == "prefix") {
			found++
		}
	}
	if found != 2 {
		t.Errorf("G's uses of the package's helper and prefix: %d of 2 found (%+v)", found, rec.Refs)
	}
}
