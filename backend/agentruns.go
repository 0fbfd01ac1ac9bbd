package backend

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/corehq/core/internal/affected"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/fsx"
	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/suggest"
	"github.com/corehq/core/internal/testreport"
	"github.com/corehq/core/internal/workspace"
)

// Summary is a run as an agent reads it: its result, where it came from,
// the failing tests its output or its JUnit files name, and the end of its
// output, bounded.
type Summary struct {
	ID         string   `json:"id" jsonschema:"the run id: read_run takes it"`
	Target     string   `json:"target,omitempty"`
	Status     string   `json:"status" jsonschema:"queued, running, succeeded, failed, cached, interrupted or skipped"`
	Done       bool     `json:"done" jsonschema:"false while it is queued or running: read_run with wait_seconds waits for it"`
	ExitCode   int      `json:"exit_code"`
	Cached     bool     `json:"cached" jsonschema:"the result was replayed from a cache, not run"`
	From       string   `json:"from,omitempty" jsonschema:"built (its command ran), local (this machine's cache) or remote (the shared cache)"`
	DurationMS int64    `json:"duration_ms"`
	Argv       []string `json:"argv,omitempty"`
	Error      string   `json:"error,omitempty" jsonschema:"why it failed without an exit code, or was interrupted or skipped"`
	// Withheld names variables of core's environment a failed target did
	// not get and may have needed.
	Withheld []string           `json:"withheld,omitempty" jsonschema:"variables of core's environment it did not get and may have needed: add them to its env: or pass_env: in targets.yaml"`
	Tests    *testreport.Report `json:"tests,omitempty" jsonschema:"the failing tests, read from go test -json, go test, TAP output or the JUnit XML files among its outputs"`
	Output   string             `json:"output,omitempty" jsonschema:"the end of its output"`
	// OutputTruncated says the output was cut (its start left out).
	OutputTruncated bool `json:"output_truncated,omitempty"`
}

// The bounds of a run's answer: the output's end shown, and the waits.
const (
	maxRunOutput = 16 << 10
	pollJournal  = 200 * time.Millisecond
)

// done reports whether a run's state is final.
func done(status string) bool {
	return status != runner.StateQueued && status != runner.StateRunning && status != ""
}

// summarize is journal j for an agent, its output's end at most max bytes
// (less when failing tests were found: they say more), its failing tests
// read from its output, or from the JUnit files of target t (nil: not
// looked for).
func summarize(j runner.Journal, root string, ws *workspace.Workspace, max int) Summary {
	v := Summary{ID: j.ID, Target: j.Target, Status: j.Status, Done: done(j.Status), ExitCode: j.ExitCode,
		Cached: j.CacheHit, From: j.From, Argv: j.Argv, Error: j.Err, Output: j.Output, OutputTruncated: j.Truncated}
	if !j.End.IsZero() && !j.Start.IsZero() {
		v.DurationMS = j.End.Sub(j.Start).Milliseconds()
	}
	for _, h := range j.Withheld {
		v.Withheld = append(v.Withheld, h.Name+" ("+h.Where+")")
	}
	if j.Status == runner.StateFailed {
		if r, ok := testreport.Parse(j.Output); ok {
			v.Tests = &r
		} else if r, ok := junitOf(root, ws, j.Target); ok {
			v.Tests = &r
		}
	}
	if v.Tests != nil {
		max = min(max, 4<<10)
	}
	if len(v.Output) > max {
		v.Output, v.OutputTruncated = cutFront(v.Output, max), true
	}
	return v
}

// cutFront is the last n bytes of s, from a line's start when one is near.
func cutFront(s string, n int) string {
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < 512 {
		return s[i+1:]
	}
	return cutText(s, n) // a rune's start
}

// junitOf reads the failing tests from the JUnit XML files among target's
// declared outputs (at most 20 files of at most 4 MB).
func junitOf(root string, ws *workspace.Workspace, target string) (testreport.Report, bool) {
	if ws == nil {
		return testreport.Report{}, false
	}
	t := ws.Target(target)
	if t == nil {
		return testreport.Report{}, false
	}
	proj, _, _ := strings.Cut(target, ":")
	p := ws.Project(proj)
	if p == nil {
		return testreport.Report{}, false
	}
	dir := filepath.Join(root, filepath.FromSlash(p.Path))
	fsys := os.DirFS(dir)
	var files []string
	for _, o := range t.Outputs {
		pattern := strings.TrimSuffix(o, "/")
		if !strings.HasSuffix(pattern, ".xml") {
			pattern += "/**/*.xml"
		}
		m, _ := doublestar.Glob(fsys, pattern, doublestar.WithNoFollow(), doublestar.WithFilesOnly())
		files = append(files, m...)
	}
	slices.Sort(files)
	all := testreport.Report{Format: testreport.JUnit}
	found := false
	for _, f := range slices.Compact(files)[:min(len(files), 20)] {
		data, err := fsx.ReadUnder(dir, f, 4<<20)
		if err != nil {
			continue
		}
		if r, ok := testreport.ParseJUnit(data); ok && r.Total > 0 {
			found = true
			all.Total += r.Total
			all.Failures = append(all.Failures, r.Failures[:min(len(r.Failures), testreport.MaxFailures-len(all.Failures))]...)
		}
	}
	return all, found
}

// TriggerMCP names, in a run's journal (list_runs' trigger), a run an
// agent started over MCP.
const TriggerMCP = "mcp"

// RunAndWait runs target (force: whatever the cache holds) and waits up to
// wait (or the caller's ctx) for it to end, then summarizes it: what an
// agent asks in one call.
func (r *Runs) RunAndWait(ctx context.Context, target string, force bool, wait time.Duration) (Summary, error) {
	ws, err := r.ws.ForRun()
	if err != nil {
		return Summary{}, apierr.Unavailable("%v", err)
	}
	if ws.Target(target) == nil {
		return Summary{}, apierr.BadRequest("%s is not a target targets.yaml declares%s; write project:target", quote.Short(target), suggest.DidYouMean(target, ws.TargetIDs()))
	}
	ids, end, err := r.runner.StartAll(r.runCtx, ws, []string{target}, CacheModeOf(force, false), TriggerMCP)
	if err != nil {
		return Summary{}, err
	}
	waitFor(ctx, end, wait)
	return r.Summarize(ctx, ids[target], 0)
}

// waitFor waits for end, at most wait, or until ctx ends.
func waitFor(ctx context.Context, end <-chan *runner.Result, wait time.Duration) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-end:
	case <-timer.C:
	case <-ctx.Done():
	}
}

// Summarize is run id for an agent, once it is done or wait has passed.
func (r *Runs) Summarize(ctx context.Context, id string, wait time.Duration) (Summary, error) {
	j, err := r.Get(id)
	if err != nil {
		return Summary{ID: id}, err
	}
	if !done(j.Status) && wait > 0 {
		deadline := time.NewTimer(wait)
		defer deadline.Stop()
		tick := time.NewTicker(pollJournal)
		defer tick.Stop()
	poll:
		for !done(j.Status) {
			select {
			case <-tick.C:
				if j, err = r.Get(id); err != nil {
					return Summary{ID: id}, err
				}
			case <-deadline.C:
				break poll
			case <-ctx.Done():
				break poll
			}
		}
	}
	ws, _ := r.ws.Resolved()
	return summarize(j, r.ws.Root(), ws, maxRunOutput), nil
}

// RunList is a page of past runs, newest first.
type RunList struct {
	Runs []RunEntry `json:"runs"`
	Paging
}

// RunEntry is a past run in a list.
type RunEntry struct {
	ID         string    `json:"id"`
	Target     string    `json:"target"`
	Status     string    `json:"status"`
	ExitCode   int       `json:"exit_code"`
	Cached     bool      `json:"cached"`
	From       string    `json:"from,omitempty"`
	Trigger    string    `json:"trigger,omitempty" jsonschema:"who started it: cli, console, affected, job, mcp"`
	Shard      string    `json:"shard,omitempty" jsonschema:"the CI shard that ran it (core run --shard), e.g. 2/4"`
	Start      time.Time `json:"start"`
	DurationMS int64     `json:"duration_ms"`
}

// ListRuns is a page of the kept runs of target ("" for all) whose status
// is status ("" for any), newest first.
func (r *Runs) ListRuns(target, status string, req PageRequest) (RunList, error) {
	js, err := runner.ListJournals(r.cacheDir, 0, target)
	if err != nil {
		return RunList{}, err
	}
	entries := []RunEntry{}
	for _, j := range js {
		if status != "" && j.Status != status {
			continue
		}
		e := RunEntry{ID: j.ID, Target: j.Target, Status: j.Status, ExitCode: j.ExitCode, Cached: j.CacheHit, From: j.From, Trigger: j.Trigger, Shard: j.Shard, Start: j.Start}
		if !j.End.IsZero() {
			e.DurationMS = j.End.Sub(j.Start).Milliseconds()
		}
		entries = append(entries, e)
	}
	out := RunList{}
	out.Runs, out.Paging, err = page(entries, question("list_runs", target, status), req, runLimits, listBudget, "target or status narrows the list")
	if out.Runs == nil {
		out.Runs = []RunEntry{}
	}
	return out, err
}

// AffectedRun is what run_affected answers: every affected target of one
// name, run as one run, each with its result.
type AffectedRun struct {
	Base    string         `json:"base" jsonschema:"what the change was measured against"`
	Name    string         `json:"name" jsonschema:"the target name run in every affected project"`
	Done    bool           `json:"done" jsonschema:"false when wait_seconds passed first: the runs go on; read_run waits for each"`
	Counts  map[string]int `json:"counts" jsonschema:"targets per status"`
	Targets []Summary      `json:"targets" jsonschema:"the targets that did not succeed first, then the rest"`
	Passed  []string       `json:"passed,omitempty" jsonschema:"targets that succeeded, when listing each in targets would pass the budget"`
	Note    string         `json:"note,omitempty"`
}

// RunAffected runs, as one run through the cache (force: whatever it
// holds), the targets named name (test by default) of every project the
// change against base affects (the default branch when ""), waits up to
// wait, and says how each went.
func (r *Runs) RunAffected(ctx context.Context, base, name string, force bool, wait time.Duration) (AffectedRun, error) {
	if name == "" {
		name = "test"
	}
	ws, err := r.ws.ForRun()
	if err != nil {
		return AffectedRun{}, apierr.Unavailable("%v", err)
	}
	if err := checkAffectedName(ws, name); err != nil {
		return AffectedRun{}, apierr.BadRequest("%v", err)
	}
	changed, err := affected.Changed(ctx, r.ws.Root(), base)
	if err != nil {
		return AffectedRun{}, reviewError(err)
	}
	set, _ := affected.Explain(ws, changed)
	targets := affectedNamed(set.Targets, name)
	out := AffectedRun{Base: base, Name: name, Counts: map[string]int{}, Targets: []Summary{}}
	if out.Base == "" {
		out.Base = "the default branch"
	}
	if len(targets) == 0 {
		out.Done = true
		out.Note = fmt.Sprintf("the change (%d files) affects no %s target: nothing ran; affected lists what it affects", len(set.Files), name)
		return out, nil
	}
	ids, end, err := r.runner.StartAll(r.runCtx, ws, targets, CacheModeOf(force, false), TriggerMCP)
	if err != nil {
		return AffectedRun{}, err
	}
	waitFor(ctx, end, wait)
	var failing, rest []Summary
	allDone := true
	for _, t := range targets {
		j, err := r.Get(ids[t])
		if err != nil {
			return AffectedRun{}, err
		}
		s := summarize(j, r.ws.Root(), ws, maxRunOutput)
		out.Counts[s.Status]++
		allDone = allDone && s.Done
		if s.Status == runner.StateSucceeded || s.Status == runner.StateCached {
			s.Output, s.OutputTruncated = "", false
			rest = append(rest, s)
		} else {
			failing = append(failing, s)
		}
	}
	out.Done = allDone
	fitFailing(failing, listBudget/2)
	out.Targets = append(failing, rest...)
	if encodedLen(out) > listBudget {
		out.Targets = failing
		for _, s := range rest {
			out.Passed = append(out.Passed, s.Target)
		}
		out.Note = fmt.Sprintf("the %d targets that succeeded are listed by id in passed (the answer's budget is %d KB)", len(rest), AnswerBudget>>10)
	}
	if !out.Done {
		out.Note = strings.TrimPrefix(out.Note+"; some targets had not ended when wait_seconds passed: read_run with wait_seconds waits for each", "; ")
	}
	return out, nil
}

// fitFailing shares budget among the failed targets' output and tests.
func fitFailing(ss []Summary, budget int) {
	if len(ss) == 0 {
		return
	}
	each := max(budget/len(ss), 2<<10)
	for i := range ss {
		s := &ss[i]
		for s.Tests != nil && len(s.Tests.Failures) > 1 && encodedLen(s) > each {
			s.Tests.Failures = s.Tests.Failures[:len(s.Tests.Failures)/2]
		}
		if room := each - encodedLen(Summary{ID: s.ID, Target: s.Target, Status: s.Status, Tests: s.Tests, Argv: s.Argv, Error: s.Error}); len(s.Output) > room {
			s.Output, s.OutputTruncated = cutFront(s.Output, max(room, 512)), true
		}
	}
}

// checkAffectedName checks name is a target name (not project:target)
// some project declares.
func checkAffectedName(ws *workspace.Workspace, name string) error {
	if strings.Contains(name, ":") {
		return fmt.Errorf("%s is not a target name: give a name such as test or build, which runs in every affected project that declares it", quote.Short(name))
	}
	if !slices.ContainsFunc(ws.Projects, func(p *workspace.Project) bool { return p.Target(name) != nil }) {
		var names []string
		for _, id := range ws.TargetIDs() {
			if _, n, _ := strings.Cut(id, ":"); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		return fmt.Errorf("no project declares a target called %s%s", quote.Short(name), suggest.DidYouMean(name, names))
	}
	return nil
}

// affectedNamed are the affected targets called name.
func affectedNamed(targets []string, name string) []string {
	var ids []string
	for _, id := range targets {
		if _, n, _ := strings.Cut(id, ":"); n == name {
			ids = append(ids, id)
		}
	}
	return ids
}
