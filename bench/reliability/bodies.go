package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// The tests of server/limits_test.go that routes.yaml generates: every POST
// row gets a body over its limit (plain, and gzip that expands past it)
// and a truncated body; one read route gets 8 KB of gzip that expands to
// 256 MiB and must allocate about its limit.
var bodyTests = []string{
	"TestBodiesAreBoundedAfterDecompression",
	"TestACompressedBodyAllocatesLittle",
	"TestATruncatedBodyIsTheClientsFault",
}

type bodyRow struct {
	Row    string            `json:"row"`
	Checks map[string]string `json:"checks"` // test/subtest -> pass, fail, skip
}

type bodiesMetrics struct {
	Rows   []bodyRow `json:"rows"`
	Failed []string  `json:"failed,omitempty"`
	Passed int       `json:"passed"`
	Output string    `json:"output_tail,omitempty"` // when go test failed
}

func bodiesFlags(fs *flag.FlagSet) func(*env) (*Result, error) {
	return func(e *env) (*Result, error) { return runBodies(e) }
}

// testEvent is a line of go test -json.
type testEvent struct {
	Action string
	Test   string
	Output string
}

func runBodies(e *env) (*Result, error) {
	run := "^(" + strings.Join(bodyTests, "|") + ")$"
	cmd := exec.Command("go", "test", "./server", "-run", run, "-count=1", "-v", "-json")
	cmd.Dir = e.root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()

	m := &bodiesMetrics{}
	res := &Result{Metrics: m}
	rows := map[string]*bodyRow{}
	var outputs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Action == "output" {
			outputs = append(outputs, ev.Output)
			continue
		}
		if ev.Test == "" || (ev.Action != "pass" && ev.Action != "fail" && ev.Action != "skip") {
			continue
		}
		// The leaves: TestX/row/check, TestATruncatedBodyIsTheClientsFault/row
		// and TestACompressedBodyAllocatesLittle.
		parts := strings.SplitN(ev.Test, "/", 3)
		var row *bodyRow
		var check string
		switch {
		case len(parts) == 3:
			row, check = rowOf(rows, parts[1]), strings.ReplaceAll(parts[2], "_", " ")
		case len(parts) == 2 && parts[0] == "TestATruncatedBodyIsTheClientsFault":
			row, check = rowOf(rows, parts[1]), "a truncated body is a 4xx"
		case ev.Test == "TestACompressedBodyAllocatesLittle":
			// It posts to GetStatus, the row status.get.
			row, check = rowOf(rows, "status.get"), "8 KB of gzip expanding to 256 MiB allocates little"
		default:
			continue
		}
		row.Checks[check] = ev.Action
		if ev.Action == "fail" {
			m.Failed = append(m.Failed, ev.Test)
		}
	}
	names := make([]string, 0, len(rows))
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	checkSet := map[string]bool{}
	for _, n := range names {
		m.Rows = append(m.Rows, *rows[n])
		for c, v := range rows[n].Checks {
			checkSet[c] = true
			if v == "pass" {
				m.Passed++
			}
		}
	}
	// The columns in the order of the tests, then any the tests grew.
	checks := []string{
		"a body over the limit is refused as too large", "gzip that expands past the limit is refused",
		"a truncated body is a 4xx", "8 KB of gzip expanding to 256 MiB allocates little",
	}
	var more []string
	for c := range checkSet {
		if !slices.Contains(checks, c) {
			more = append(more, c)
		}
	}
	sort.Strings(more)
	checks = append(checks, more...)

	fmt.Printf("`go test ./server -run '%s' -count=1 -v`: the tests server/limits_test.go generates from routes.yaml, one row per route\n\n", run)
	fmt.Printf("| row | %s |\n", strings.Join(checks, " | "))
	fmt.Printf("| --- |%s\n", strings.Repeat(" --- |", len(checks)))
	for _, r := range m.Rows {
		cells := make([]string, len(checks))
		for i, c := range checks {
			switch v := r.Checks[c]; v {
			case "":
				cells[i] = "–"
			case "fail":
				cells[i] = "**FAIL**"
			default:
				cells[i] = v
			}
		}
		fmt.Printf("| %s | %s |\n", r.Row, strings.Join(cells, " | "))
	}

	switch {
	case runErr != nil && len(m.Failed) == 0:
		tail := strings.Join(outputs[max(0, len(outputs)-20):], "")
		m.Output = tail + stderr.String()
		res.Reason = fmt.Sprintf("go test failed without a failing row: %v: %.500s", runErr, strings.TrimSpace(m.Output))
	case len(m.Failed) > 0:
		res.Reason = fmt.Sprintf("%d checks failed: %s", len(m.Failed), strings.Join(m.Failed[:min(5, len(m.Failed))], ", "))
	case m.Passed == 0:
		res.Reason = "no check ran"
	default:
		res.Pass = true
		res.Reason = fmt.Sprintf("%d checks passed on %d rows", m.Passed, len(m.Rows))
	}
	return res, nil
}

func rowOf(rows map[string]*bodyRow, name string) *bodyRow {
	r := rows[name]
	if r == nil {
		r = &bodyRow{Row: name, Checks: map[string]string{}}
		rows[name] = r
	}
	return r
}
