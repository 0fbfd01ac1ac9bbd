package parse

import (
	"strings"
	"testing"
)

func TestFastPathStatsCountFilesByReason(t *testing.T) {
	ResetFastPathStats()
	defer ResetFastPathStats()
	File(LangGo, "a.go", []byte("package a\nfunc F() {}\n"))
	File(LangGo, "b.go", []byte("package b\ntype T[P *C] struct{ p P }\n")) // P times C, or P a pointer to C: go/parser decides
	File(LangGo, "c.go", []byte("package c\nfunc {\n"))
	File(LangPython, "a.py", []byte("import os\n"))
	File(LangPython, "b.py", []byte("match x:\n    case 1: pass\n"))
	File(LangPython, "c.py", []byte("def f(:\n"))
	File(LangMarkdown, "a.md", []byte("# A\n"))
	st := FastPathStats()
	if st[LangGo][FastPath] != 1 || st[LangPython][FastPath] != 1 {
		t.Fatalf("fast: %v", st)
	}
	if st[LangGo][SyntaxErrorReason] != 1 || st[LangPython][SyntaxErrorReason] != 1 {
		t.Fatalf("syntax errors: %v", st)
	}
	if st[LangPython][string(pdSyntax)] != 1 {
		t.Fatalf("python: %v", st[LangPython])
	}
	var site string
	for why := range st[LangGo] {
		if why != FastPath && why != SyntaxErrorReason {
			site = why
		}
	}
	if !strings.HasPrefix(site, "(*goFast).") || strings.HasSuffix(site, ".expect") {
		t.Fatalf("the Go fast path gave up at %q: %v", site, st[LangGo])
	}
	if len(st) != 2 {
		t.Fatalf("languages: %v", st)
	}
}
