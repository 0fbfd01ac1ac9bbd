// Package testreport finds the failing tests in what a test target
// printed or wrote: `go test -json` events, plain `go test` output, TAP
// (Node's test runner, and any other TAP producer) and JUnit XML files.
// Its input is a target's output, which any program may have written: it
// is read defensively, bounded, and never fails (what does not parse is
// no failure found).
package testreport

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The formats a report is read from.
const (
	GoJSON = "go-json"
	Go     = "go"
	TAP    = "tap"
	JUnit  = "junit"
)

// Bounds: failures listed, bytes of each one's message, bytes read.
const (
	MaxFailures = 50
	MaxMessage  = 2 << 10
	MaxInput    = 16 << 20
)

// Failure is one failing test.
type Failure struct {
	Name    string `json:"name" jsonschema:"the test, as its runner names it (TestX/sub, a TAP description, a JUnit name)"`
	Package string `json:"package,omitempty" jsonschema:"its Go package or JUnit class name"`
	Message string `json:"message,omitempty" jsonschema:"what it printed when it failed, at most 2 KB, from its end"`
}

// Report is the failing tests found, in the order they failed.
type Report struct {
	Format   string    `json:"format" jsonschema:"go-json, go, tap or junit"`
	Failures []Failure `json:"failures"`
	// Total counts the failures, listed or not.
	Total int `json:"total"`
}

func (r *Report) add(f Failure) {
	r.Total++
	if len(r.Failures) < MaxFailures {
		f.Message = tail(strings.TrimSpace(f.Message), MaxMessage)
		r.Failures = append(r.Failures, f)
	}
}

// Parse reads the failing tests from a test run's output, in the first
// format that has some: go test -json, plain go test, TAP. ok is false
// when it recognizes no failure report.
func Parse(output string) (Report, bool) {
	if len(output) > MaxInput {
		output = output[len(output)-MaxInput:]
	}
	for _, p := range []func(string) Report{goJSON, goPlain, tap} {
		if r := p(output); r.Total > 0 {
			return r, true
		}
	}
	return Report{}, false
}

// lines yields the lines of s, each at most 1 MB (longer ones are cut).
func lines(s string, f func(string)) {
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f(sc.Text())
	}
}

// goJSON reads test2json's events: a fail action with a Test names a
// failing test; its output events are its message.
func goJSON(s string) Report {
	r := Report{Format: GoJSON}
	type key struct{ pkg, test string }
	out := map[key]*strings.Builder{}
	lines(s, func(l string) {
		if !strings.HasPrefix(l, "{") {
			return
		}
		var e struct {
			Action, Package, Test, Output string
		}
		if json.Unmarshal([]byte(l), &e) != nil || e.Test == "" {
			return
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "output":
			b := out[k]
			if b == nil {
				b = &strings.Builder{}
				out[k] = b
			}
			if b.Len() < 64<<10 {
				b.WriteString(e.Output)
			}
		case "fail":
			msg := ""
			if b := out[k]; b != nil {
				msg = b.String()
			}
			r.add(Failure{Name: e.Test, Package: e.Package, Message: msg})
		}
	})
	return r
}

var (
	goFail    = regexp.MustCompile(`^(\s*)--- FAIL: (\S+)`)
	goPkgFail = regexp.MustCompile(`^FAIL\s+(\S+)\s`)
)

// goPlain reads `go test` (and -v) output: "--- FAIL: TestX (0.01s)" and
// the indented lines after it; the "FAIL pkg" line that follows names the
// package of the failures before it.
func goPlain(s string) Report {
	r := Report{Format: Go}
	var cur *Failure
	var msg strings.Builder
	var pending []Failure
	flush := func() {
		if cur != nil {
			cur.Message = msg.String()
			pending = append(pending, *cur)
			cur = nil
		}
		msg.Reset()
	}
	lines(s, func(l string) {
		if m := goFail.FindStringSubmatch(l); m != nil {
			flush()
			cur = &Failure{Name: m[2]}
			return
		}
		if m := goPkgFail.FindStringSubmatch(l + " "); m != nil {
			flush()
			for _, f := range pending {
				f.Package = m[1]
				r.add(f)
			}
			pending = nil
			return
		}
		if cur != nil {
			if strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
				if msg.Len() < 64<<10 {
					msg.WriteString(l + "\n")
				}
				return
			}
			flush()
		}
	})
	flush()
	for _, f := range pending {
		r.add(f)
	}
	return r
}

var tapNotOK = regexp.MustCompile(`^(\s*)not ok\s+\d*\s*(?:-\s*)?(.*?)\s*(#\s*(?i:todo|skip).*)?$`)

// tap reads TAP: "not ok N - name" (TODO and SKIP directives are not
// failures), with the YAML block after it, indented, as its message.
// Node's test runner nests subtests; a parent that failed because a
// subtest did is listed after it.
func tap(s string) Report {
	r := Report{Format: TAP}
	var cur *Failure
	var indent string
	var msg strings.Builder
	flush := func() {
		if cur != nil {
			cur.Message = msg.String()
			r.add(*cur)
			cur = nil
		}
		msg.Reset()
	}
	lines(s, func(l string) {
		if m := tapNotOK.FindStringSubmatch(l); m != nil {
			flush()
			if m[3] == "" {
				name := m[2]
				if name == "" {
					name = "(unnamed)"
				}
				cur, indent = &Failure{Name: name}, m[1]
			}
			return
		}
		if cur != nil && strings.HasPrefix(l, indent+"  ") {
			if msg.Len() < 64<<10 {
				msg.WriteString(strings.TrimPrefix(l, indent+"  ") + "\n")
			}
			return
		}
		flush()
	})
	flush()
	return r
}

// ParseJUnit reads the failing test cases (a failure or an error) of a
// JUnit XML report; ok is false when data is not one.
func ParseJUnit(data []byte) (Report, bool) {
	if len(data) > MaxInput {
		return Report{}, false
	}
	r := Report{Format: JUnit}
	d := xml.NewDecoder(strings.NewReader(string(data)))
	d.Strict = false
	d.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }
	seen := false
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "testsuites", "testsuite":
			seen = true
		case "testcase":
			seen = true
			var tc struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Failure   []struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error []struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"error"`
			}
			if d.DecodeElement(&tc, &se) != nil {
				return r, seen
			}
			for _, f := range append(tc.Failure, tc.Error...) {
				r.add(Failure{Name: tc.Name, Package: tc.Classname, Message: strings.TrimSpace(f.Message + "\n" + f.Text)})
			}
		}
	}
	return r, seen
}

// tail is the last n bytes of s, from a rune's start.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := len(s) - n
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return "… " + s[i:]
}
