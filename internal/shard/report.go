package shard

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/corehq/core/internal/runlog"
	"github.com/corehq/core/internal/testreport"
)

// Bounds of a report: the failures whose output it shows, and how much of
// each output (its end, where a failure usually says why). A GitHub step
// summary holds at most 1 MiB.
const (
	MaxShownFailures = 20
	MaxOutputLines   = 60
	MaxOutputBytes   = 8 << 10
)

// Source is the journals of one shard as the workflow handed them over:
// a runs directory, named by where it was found.
type Source struct {
	Name     string
	Journals []runlog.Journal
}

// Report is one CI run put back together from its shards' journals.
type Report struct {
	Shards  []ShardSummary `json:"shards"`
	Targets []Result       `json:"targets"`
	// Twice are the targets whose command ran on more than one shard
	// (a dependency the cache did not have yet: see the plan's needs).
	Twice []string `json:"ran_twice,omitempty"`
	// Problems are what fails the report beside failed targets: shards
	// that ran different plans, planned targets without a result.
	Problems []string `json:"problems,omitempty"`
	Failed   bool     `json:"failed"`
}

// ShardSummary counts one shard's targets.
type ShardSummary struct {
	Shard   string `json:"shard"` // "" for journals of a run without --shard
	Source  string `json:"source"`
	Targets int    `json:"targets"`
	Built   int    `json:"built"`
	Cached  int    `json:"cached"`
	Failed  int    `json:"failed"`
	WorkMS  int64  `json:"work_ms"` // the time its built targets took
}

// Result is one target's outcome in the report.
type Result struct {
	Target     string `json:"target"`
	Status     string `json:"status"`
	Shard      string `json:"shard,omitempty"`
	From       string `json:"from,omitempty"`
	ExitCode   int    `json:"exit_code,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	RunID      string `json:"run_id,omitempty"`
	Err        string `json:"error,omitempty"`
	// Output is the end of a failure's output (MaxOutputLines,
	// MaxOutputBytes); Tests the failing tests found in it.
	Output string   `json:"output,omitempty"`
	Tests  []string `json:"failing_tests,omitempty"`
}

// OK reports whether the target succeeded or came from the cache.
func (r Result) OK() bool { return r.Status == runlog.StateSucceeded || r.Status == runlog.StateCached }

// ran says whether a journal's command ran (rather than the cache
// serving it).
func ran(j runlog.Journal) bool {
	return !j.CacheHit && j.Status != runlog.StateQueued
}

// Gather puts the shards' journals together: per source and shard, the
// latest journal of each target; across sources, a failure over a success over a
// cache hit. With plan, every planned target must have a result.
func Gather(sources []Source, plan *Plan) Report {
	var rep Report
	best := map[string]runlog.Journal{}
	bestShard := map[string]string{}
	ranOn := map[string][]string{}
	plans := map[string]bool{}
	for _, src := range bySource(sources) {
		latest := map[string]runlog.Journal{}
		for _, j := range src.Journals {
			if prev, ok := latest[j.Target]; !ok || j.ID > prev.ID {
				latest[j.Target] = j
			}
		}
		sum := ShardSummary{Source: src.Name}
		for _, j := range latest {
			if j.Shard != "" {
				sum.Shard = j.Shard
			}
			if j.ShardPlan != "" {
				plans[j.ShardPlan] = true
			}
			sum.Targets++
			switch {
			case !okStatus(j.Status):
				sum.Failed++
			case j.CacheHit:
				sum.Cached++
			}
			if ran(j) {
				if okStatus(j.Status) {
					sum.Built++
				}
				sum.WorkMS += duration(j).Milliseconds()
				ranOn[j.Target] = append(ranOn[j.Target], cmp.Or(j.Shard, src.Name))
			}
			if prev, ok := best[j.Target]; !ok || rank(j) > rank(prev) {
				best[j.Target] = j
				bestShard[j.Target] = j.Shard
			}
		}
		rep.Shards = append(rep.Shards, sum)
	}
	slices.SortFunc(rep.Shards, func(a, b ShardSummary) int {
		return cmp.Or(compareSpecs(a.Shard, b.Shard), strings.Compare(a.Source, b.Source))
	})
	for id, j := range best {
		r := Result{Target: id, Status: j.Status, Shard: bestShard[id], From: j.From, ExitCode: j.ExitCode,
			DurationMS: duration(j).Milliseconds(), RunID: j.ID, Err: j.Err}
		if r.Status == runlog.StateQueued || r.Status == runlog.StateRunning {
			r.Err = cmp.Or(r.Err, "it did not finish: its shard stopped while it was "+r.Status)
		}
		if !r.OK() {
			r.Output = Tail(j.Output)
			if tr, ok := testreport.Parse(j.Output); ok {
				for _, f := range tr.Failures {
					r.Tests = append(r.Tests, strings.TrimPrefix(f.Package+" "+f.Name, " "))
				}
			}
			rep.Failed = true
		}
		rep.Targets = append(rep.Targets, r)
		if len(ranOn[id]) > 1 {
			slices.SortFunc(ranOn[id], compareSpecs)
			rep.Twice = append(rep.Twice, fmt.Sprintf("%s (on %s)", id, strings.Join(ranOn[id], ", ")))
		}
	}
	slices.SortFunc(rep.Targets, func(a, b Result) int { return strings.Compare(a.Target, b.Target) })
	slices.Sort(rep.Twice)
	if len(plans) > 1 {
		rep.Problems = append(rep.Problems, fmt.Sprintf("the shards ran %d different plans (%s): they saw different run histories or different commits, so some targets may have run on none; give every shard the same checkout and the same .core/runs (or none)", len(plans), strings.Join(sortedKeys(plans), ", ")))
	}
	if plan != nil {
		if len(plans) == 1 && !plans[plan.Digest] {
			rep.Problems = append(rep.Problems, fmt.Sprintf("the shards ran plan %s, not %s, the plan computed here", sortedKeys(plans)[0], plan.Digest))
		}
		var missing []string
		for _, t := range plan.Targets {
			if _, ok := best[t.ID]; !ok {
				missing = append(missing, t.ID)
			}
		}
		if len(missing) > 0 {
			rep.Problems = append(rep.Problems, fmt.Sprintf("%d planned targets have no result (a dependency failed, or their shard did not run or upload its journals): %s", len(missing), strings.Join(bounded(missing, 20), ", ")))
		}
	}
	if len(rep.Problems) > 0 {
		rep.Failed = true
	}
	return rep
}

// bySource splits each source by the shard its journals record: one
// directory may hold several shards' journals (GitLab extracts every
// job's artifacts into the same place).
func bySource(sources []Source) []Source {
	var out []Source
	for _, src := range sources {
		index := map[string]int{}
		for _, j := range src.Journals {
			i, ok := index[j.Shard]
			if !ok {
				i = len(out)
				index[j.Shard] = i
				out = append(out, Source{Name: src.Name})
			}
			out[i].Journals = append(out[i].Journals, j)
		}
	}
	return out
}

func okStatus(s string) bool { return s == runlog.StateSucceeded || s == runlog.StateCached }

// rank orders two journals of one target: a failure (or a run that did
// not finish) says most, then a run of the command, then a cache hit.
func rank(j runlog.Journal) int {
	switch {
	case !okStatus(j.Status):
		return 2
	case ran(j):
		return 1
	}
	return 0
}

func duration(j runlog.Journal) time.Duration {
	if j.End.IsZero() {
		return 0
	}
	return j.End.Sub(j.Start)
}

// compareSpecs orders "2/4" before "10/12", and "" (no shard) last.
func compareSpecs(a, b string) int {
	ai, an, aerr := ParseSpec(a)
	bi, bn, berr := ParseSpec(b)
	switch {
	case aerr != nil || berr != nil:
		return cmp.Or(cmp.Compare(boolInt(aerr != nil), boolInt(berr != nil)), strings.Compare(a, b))
	}
	return cmp.Or(cmp.Compare(an, bn), cmp.Compare(ai, bi))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func bounded(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(slices.Clone(s[:n]), fmt.Sprintf("and %d more", len(s)-n))
}

// Tail is the end of an output as a report shows it: the last
// MaxOutputLines lines, at most MaxOutputBytes, with a line saying what
// was left out.
func Tail(out string) string {
	out = strings.TrimRight(out, "\n")
	lines := strings.Split(out, "\n")
	cut := 0
	if len(lines) > MaxOutputLines {
		cut = len(lines) - MaxOutputLines
		lines = lines[cut:]
	}
	s := strings.Join(lines, "\n")
	if len(s) > MaxOutputBytes {
		s = s[len(s)-MaxOutputBytes:]
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		cut = -1
	}
	switch {
	case cut > 0:
		s = fmt.Sprintf("[… %d earlier lines; core runs show prints all of it on the shard]\n%s", cut, s)
	case cut < 0:
		s = "[… earlier output left out; core runs show prints all of it on the shard]\n" + s
	}
	return s
}

// Count is how many targets ended in each state.
func (r Report) Count(state string) int {
	n := 0
	for _, t := range r.Targets {
		if t.Status == state {
			n++
		}
	}
	return n
}

// Headline is the report in one line.
func (r Report) Headline() string {
	var parts []string
	for _, s := range []string{runlog.StateSucceeded, runlog.StateCached, runlog.StateFailed, runlog.StateInterrupted, runlog.StateRunning, runlog.StateQueued} {
		if n := r.Count(s); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(parts) == 0 {
		parts = []string{"nothing ran"}
	}
	verdict := "passed"
	if r.Failed {
		verdict = "failed"
	}
	return fmt.Sprintf("%s: %d targets on %d shards: %s", verdict, len(r.Targets), len(r.Shards), strings.Join(parts, ", "))
}

// Markdown writes the report as a GitHub step summary.
func (r Report) Markdown(w io.Writer) error {
	mark := "✅"
	if r.Failed {
		mark = "❌"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s core: %s\n\n", mark, r.Headline())
	b.WriteString("| shard | targets | built | cached | failed | work |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Shards {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s |\n", cmp.Or(s.Shard, s.Source), s.Targets, s.Built, s.Cached, s.Failed, (time.Duration(s.WorkMS) * time.Millisecond).Round(100*time.Millisecond))
	}
	for _, p := range r.Problems {
		fmt.Fprintf(&b, "\n> **problem:** %s\n", p)
	}
	if len(r.Twice) > 0 {
		fmt.Fprintf(&b, "\nRan on two shards (needed there before the cache had it): %s\n", strings.Join(bounded(r.Twice, 20), ", "))
	}
	shown := 0
	for _, t := range r.Targets {
		if t.OK() {
			continue
		}
		if shown == MaxShownFailures {
			fmt.Fprintf(&b, "\n%d more failures: the JUnit report and the shards' journals have them.\n", r.Count(runlog.StateFailed)+r.Count(runlog.StateInterrupted)-shown)
			break
		}
		shown++
		fmt.Fprintf(&b, "\n### ✘ %s (%s)\n\n", t.Target, describe(t))
		if len(t.Tests) > 0 {
			fmt.Fprintf(&b, "Failing tests: %s\n\n", strings.Join(bounded(t.Tests, 10), ", "))
		}
		if t.Output != "" {
			fence := "```"
			for strings.Contains(t.Output, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "<details><summary>output</summary>\n\n%stext\n%s\n%s\n\n</details>\n", fence, t.Output, fence)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// describe is a failure's status, exit code and shard.
func describe(t Result) string {
	s := t.Status
	if t.ExitCode > 0 {
		s += fmt.Sprintf(", exit %d", t.ExitCode)
	} else if t.Err != "" {
		s += ": " + t.Err
	}
	if t.Shard != "" {
		s += ", shard " + t.Shard
	}
	if t.RunID != "" {
		s += ", run " + t.RunID
	}
	return s
}

// JUnit writes the report as JUnit XML, one test suite per shard and one
// test case per target (class: its project), for CI systems' test tabs.
func (r Report) JUnit(w io.Writer) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Class   string   `xml:"classname,attr"`
		Name    string   `xml:"name,attr"`
		Time    string   `xml:"time,attr"`
		Failure *failure `xml:"failure,omitempty"`
	}
	type suite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type suites struct {
		XMLName  xml.Name `xml:"testsuites"`
		Name     string   `xml:"name,attr"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []suite  `xml:"testsuite"`
	}
	secs := func(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
	out := suites{Name: "core"}
	index := map[string]int{}
	var took []int64 // per suite
	for _, t := range r.Targets {
		name := "core"
		if t.Shard != "" {
			name = "shard " + t.Shard
		}
		i, ok := index[name]
		if !ok {
			i = len(out.Suites)
			index[name] = i
			out.Suites = append(out.Suites, suite{Name: name})
			took = append(took, 0)
		}
		s := &out.Suites[i]
		project, target, _ := strings.Cut(t.Target, ":")
		c := testcase{Class: project, Name: target, Time: secs(t.DurationMS)}
		if !t.OK() {
			c.Failure = &failure{Message: describe(t), Type: t.Status, Text: t.Output}
			s.Failures++
			out.Failures++
		}
		s.Tests++
		out.Tests++
		took[i] += t.DurationMS
		s.Time = secs(took[i])
		s.Cases = append(s.Cases, c)
	}
	slices.SortFunc(out.Suites, func(a, b suite) int {
		return compareSpecs(strings.TrimPrefix(a.Name, "shard "), strings.TrimPrefix(b.Name, "shard "))
	})
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
