package query

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, query, term, message string
	}{
		{
			name: "an empty query is an error", query: "",
			message: "empty query: give at least one term: kind:, project:, target:, spell:, symbol:, path:, or a bare word",
		},
		{
			name: "a query of spaces is empty", query: " \t  ",
			message: "empty query: give at least one term: kind:, project:, target:, spell:, symbol:, path:, or a bare word",
		},
		{
			name: "an unknown prefix names the term and the allowed prefixes", query: "kinds:file", term: "kinds:file",
			message: `unknown term "kinds:file": allowed prefixes are kind:, project:, target:, spell:, symbol:, path:, depth:, or a bare word`,
		},
		{
			name: "a node kind is not a prefix", query: "api doc:README.md", term: "doc:README.md",
			message: `unknown term "doc:README.md": allowed prefixes are kind:, project:, target:, spell:, symbol:, path:, depth:, or a bare word`,
		},
		{
			name: "prefixes are case-sensitive", query: "Kind:file", term: "Kind:file",
			message: `unknown term "Kind:file": allowed prefixes are kind:, project:, target:, spell:, symbol:, path:, depth:, or a bare word`,
		},
		{
			name: "a leading colon is an unknown prefix", query: ":x", term: ":x",
			message: `unknown term ":x": allowed prefixes are kind:, project:, target:, spell:, symbol:, path:, depth:, or a bare word`,
		},
		{
			name: "kind: takes only the node kinds", query: "kind:widget", term: "kind:widget",
			message: `kind:"widget" is not a kind; allowed: project, target, spell, doc, file, package, symbol`,
		},
		{
			name: "kind: is case-sensitive", query: "kind:File", term: "kind:File",
			message: `kind:"File" is not a kind; allowed: project, target, spell, doc, file, package, symbol`,
		},
		{
			name: "kind: needs a kind", query: "kind:", term: "kind:",
			message: `kind:"" is not a kind; allowed: project, target, spell, doc, file, package, symbol`,
		},
		{
			name: "depth: must be a number", query: "api depth:x", term: "depth:x",
			message: `depth:"x" must be a number from 0 to 10`,
		},
		{
			name: "depth: stops at 10", query: "api depth:11", term: "depth:11",
			message: `depth:"11" must be a number from 0 to 10`,
		},
		{
			name: "depth: takes no sign", query: "api depth:-1", term: "depth:-1",
			message: `depth:"-1" must be a number from 0 to 10`,
		},
		{
			name: "depth: needs a value", query: "api depth:", term: "depth:",
			message: `depth:"" must be a number from 0 to 10`,
		},
		{
			name: "depth: is given at most once", query: "depth:1 api depth:2", term: "depth:2",
			message: `depth: given twice ("depth:1" and "depth:2"); give it at most once`,
		},
		{
			name: "depth: alone selects nothing", query: "depth:2", term: "depth:2",
			message: `"depth:2" selects nothing to expand from: add a term: kind:, project:, target:, spell:, symbol:, path:, or a bare word`,
		},
		{
			name: "project: needs a name", query: "project:", term: "project:",
			message: "project: needs a name, as in project:NAME",
		},
		{
			name: "spell: needs a name", query: "spell:", term: "spell:",
			message: "spell: needs a name, as in spell:NAME",
		},
		{
			name: "symbol: needs a name", query: "symbol:", term: "symbol:",
			message: "symbol: needs a name, as in symbol:NAME",
		},
		{
			name: "target: needs a project and a target", query: "target:api", term: "target:api",
			message: `target:"api" must name a project and a target, as in target:PROJECT:TARGET`,
		},
		{
			name: "target: needs a target after the project", query: "target:api:", term: "target:api:",
			message: `target:"api:" must name a project and a target, as in target:PROJECT:TARGET`,
		},
		{
			name: "path: rejects an unclosed bracket", query: "path:src/[ab", term: "path:src/[ab",
			message: `path:"src/[ab" is not a valid glob (doublestar syntax: *, **, ?, [a-z], {a,b}, with \ escaping)`,
		},
		{
			name: "path: rejects an unclosed brace", query: "path:{a,b", term: "path:{a,b",
			message: `path:"{a,b" is not a valid glob (doublestar syntax: *, **, ?, [a-z], {a,b}, with \ escaping)`,
		},
		{
			name: "path: needs a glob", query: "path:", term: "path:",
			message: `path:"" is not a valid glob (doublestar syntax: *, **, ?, [a-z], {a,b}, with \ escaping)`,
		},
		{
			name: "the first bad term is reported", query: "api kind:nope nope:x", term: "kind:nope",
			message: `kind:"nope" is not a kind; allowed: project, target, spell, doc, file, package, symbol`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Parse(tc.query)
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want an error", tc.query, q)
			}
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("error %v is a %T, want *Error", err, err)
			}
			if qe.Term != tc.term {
				t.Errorf("Term = %q, want %q", qe.Term, tc.term)
			}
			if err.Error() != tc.message {
				t.Errorf("message\n got %s\nwant %s", err, tc.message)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, query, normal string
		depth               int
		needsSymbols        bool
	}{
		{name: "a bare word is lower-cased", query: "Server", normal: "server", depth: 1},
		{name: "terms are sorted and deduplicated", query: "spell:b project:a spell:b", normal: "project:a spell:b", depth: 1},
		{name: "any run of white space separates terms", query: "  a\tb\n c ", normal: "a b c", depth: 1},
		{name: "the default depth is left out", query: "depth:1 api", normal: "api", depth: 1},
		{name: "depth: is written last without leading zeros", query: "depth:03 api", normal: "api depth:3", depth: 3},
		{name: "depth:0 is allowed", query: "api depth:0", normal: "api depth:0", depth: 0},
		{name: "depth:10 is allowed", query: "api depth:10", normal: "api depth:10", depth: 10},
		{name: "target: keeps project and target", query: "target:api:build", normal: "target:api:build", depth: 1},
		{name: "a target name may hold a colon", query: "target:api:a:b", normal: "target:api:a:b", depth: 1},
		{name: "path: keeps the glob as written", query: "path:**/*.{go,md}", normal: "path:**/*.{go,md}", depth: 1},
		{name: "symbol: keeps its case", query: "symbol:Server.*", normal: "symbol:Server.*", depth: 1, needsSymbols: true},
		{name: "kind:symbol needs symbols", query: "kind:symbol", normal: "kind:symbol", depth: 1, needsSymbols: true},
		{name: "kind:file needs no symbols", query: "kind:file", normal: "kind:file", depth: 1},
		{name: "a bare word symbol needs no symbols", query: "symbol", normal: "symbol", depth: 1},
		{name: "a project named symbol needs no symbols", query: "project:symbol", normal: "project:symbol", depth: 1},
		{name: "a space, even URL-decoded, always separates terms", query: "path:docs/my file", normal: "file path:docs/my", depth: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, err := Parse(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if got := q.String(); got != tc.normal {
				t.Errorf("String() = %q, want %q", got, tc.normal)
			}
			if q.Depth() != tc.depth {
				t.Errorf("Depth() = %d, want %d", q.Depth(), tc.depth)
			}
			if q.NeedsSymbols() != tc.needsSymbols {
				t.Errorf("NeedsSymbols() = %v, want %v", q.NeedsSymbols(), tc.needsSymbols)
			}
			checkRoundTrip(t, q)
		})
	}
}

func checkRoundTrip(t *testing.T, q *Query) {
	t.Helper()
	s := q.String()
	q2, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q), the normal form of an accepted query: %v", s, err)
	}
	if s2 := q2.String(); s2 != s {
		t.Fatalf("normal form not stable: %q -> %q", s, s2)
	}
	if !reflect.DeepEqual(q, q2) {
		t.Fatalf("Parse(%q) = %#v, want %#v", s, q2, q)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", " ", "api", "project:api", "target:api:build depth:2", "spell:deploy", "symbol:Server.*",
		"path:**/*.go", "path:{a,b", "kind:symbol", "kind:widget", "kinds:file", "depth:10 x", "depth:1 depth:2 x",
		"depth:x", "CoreHQ path:docs/[a-z]*.md", "\xff", "İ K", "a\x00b", ":", "target::", "path:\\",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("Parse(%q): error %v is a %T, want *Error", s, err, err)
			}
			if qe.Message == "" || qe.Error() != qe.Message {
				t.Fatalf("Parse(%q): bad error %#v", s, qe)
			}
			if qe.Term != "" && !strings.Contains(s, qe.Term) {
				t.Fatalf("Parse(%q): error names term %q, which is not in the query", s, qe.Term)
			}
			return
		}
		if q.depth < 0 || q.depth > MaxDepth || len(q.terms) == 0 {
			t.Fatalf("Parse(%q) accepted %#v", s, q)
		}
		if utf8.ValidString(s) && strings.TrimSpace(q.String()) != q.String() {
			t.Fatalf("normal form %q has stray spaces", q.String())
		}
		checkRoundTrip(t, q)
	})
}
