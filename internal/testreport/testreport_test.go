package testreport

import (
	"strings"
	"testing"
)

func names(r Report) string {
	var n []string
	for _, f := range r.Failures {
		n = append(n, f.Package+" "+f.Name)
	}
	return strings.TrimSpace(strings.Join(n, ", "))
}

func TestFailingTestsAreFoundInEachFormat(t *testing.T) {
	for _, tc := range []struct {
		name, output, format, want, message string
	}{
		{"go test -json", `{"Action":"run","Package":"ex/util","Test":"TestSlug"}
{"Action":"output","Package":"ex/util","Test":"TestSlug","Output":"    slug_test.go:9: got \"a-b\", want \"a_b\"\n"}
{"Action":"fail","Package":"ex/util","Test":"TestSlug","Elapsed":0}
{"Action":"pass","Package":"ex/util","Test":"TestOther","Elapsed":0}
{"Action":"fail","Package":"ex/util","Elapsed":0.1}
`, GoJSON, "ex/util TestSlug", `want "a_b"`},
		{"plain go test", `--- FAIL: TestSlug (0.00s)
    slug_test.go:9: got "a-b", want "a_b"
    --- FAIL: TestSlug/spaces (0.00s)
        slug_test.go:12: bad
FAIL
FAIL	ex/util	0.004s
ok  	ex/auth	0.002s
`, Go, "ex/util TestSlug, ex/util TestSlug/spaces", `want "a_b"`},
		{"Node's TAP", `TAP version 13
# Subtest: slug
    not ok 1 - lowercases
      ---
      duration_ms: 0.5
      error: 'Expected values to be strictly equal'
      ...
    ok 2 - trims
not ok 1 - slug
  ---
  duration_ms: 1
  ...
ok 2 - other # SKIP
not ok 3 - pending # TODO later
1..3
`, TAP, "lowercases,  slug", "strictly equal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := Parse(tc.output)
			if !ok || r.Format != tc.format || names(r) != tc.want {
				t.Fatalf("%v %s %q, want %s %q", ok, r.Format, names(r), tc.format, tc.want)
			}
			if !strings.Contains(r.Failures[0].Message, tc.message) {
				t.Errorf("the message: %q", r.Failures[0].Message)
			}
		})
	}
	if _, ok := Parse("ok  \tex/util\t0.1s\nPASS\n"); ok {
		t.Error("a passing run had failures")
	}
}

func TestJUnitFailuresAndErrorsAreFailures(t *testing.T) {
	r, ok := ParseJUnit([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites><testsuite name="web" tests="3">
  <testcase classname="web.slug" name="lowercases"><failure message="expected a_b">at slug.test.js:4</failure></testcase>
  <testcase classname="web.slug" name="trims"/>
  <testcase classname="web.api" name="boots"><error message="TypeError: x is undefined"/></testcase>
</testsuite></testsuites>`))
	if !ok || r.Total != 2 || names(r) != "web.slug lowercases, web.api boots" || !strings.Contains(r.Failures[0].Message, "slug.test.js:4") {
		t.Fatalf("%v %+v", ok, r)
	}
	if _, ok := ParseJUnit([]byte("not xml at all")); ok {
		t.Error("text was taken for JUnit")
	}
}

func TestAReportIsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 500; i++ {
		b.WriteString("--- FAIL: TestMany (0.00s)\n    " + strings.Repeat("x", 10000) + "\n")
	}
	r, ok := Parse(b.String())
	if !ok || r.Total != 500 || len(r.Failures) != MaxFailures || len(r.Failures[0].Message) > MaxMessage+8 {
		t.Fatalf("total %d, listed %d, message %d bytes", r.Total, len(r.Failures), len(r.Failures[0].Message))
	}
}

func FuzzParse(f *testing.F) {
	f.Add("--- FAIL: TestX (0.00s)\n    x\nFAIL\tp\t0.1s\n")
	f.Add(`{"Action":"fail","Package":"p","Test":"T"}`)
	f.Add("not ok 1 - x\n  ---\n  a: b\n  ...\n")
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := Parse(s)
		if ok != (r.Total > 0) || len(r.Failures) > MaxFailures {
			t.Fatalf("%v %+v", ok, r)
		}
		for _, f := range r.Failures {
			if len(f.Message) > MaxMessage+8 {
				t.Fatalf("a message of %d bytes", len(f.Message))
			}
		}
	})
}

func FuzzParseJUnit(f *testing.F) {
	f.Add([]byte(`<testsuite><testcase name="a"><failure message="m"/></testcase></testsuite>`))
	f.Add([]byte(`<testcase name="a"><error>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _ := ParseJUnit(data)
		if len(r.Failures) > MaxFailures {
			t.Fatalf("%d failures listed", len(r.Failures))
		}
	})
}
