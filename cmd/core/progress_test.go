package main

import (
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/runner"
	"github.com/corehq/core/internal/targetenv"
	"github.com/corehq/core/internal/testbed"
)

func TestProgressCountsAndSaysWhatIsStillRunning(t *testing.T) {
	var out testbed.Buffer
	p := newProgress(&out, false)
	p.quiet = 20 * time.Millisecond
	now := time.Now()
	for _, id := range []string{"a:build", "b:build"} {
		p.event(runner.Event{Target: id, State: runner.StateQueued, Time: now})
	}
	p.event(runner.Event{Target: "a:build", State: runner.StateRunning, Time: now})
	p.event(runner.Event{Target: "b:build", State: runner.StateCached, Time: now})
	stop := make(chan struct{})
	go p.heartbeat(stop)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "still running: a:build") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(stop)
	p.event(runner.Event{Target: "a:build", State: runner.StateFailed, RunID: "r1", ExitCode: 2, Time: time.Now()})
	got := out.String()
	for _, want := range []string{"[0/2] ▶ a:build", "[1/2] ⚡ b:build (cached)", "[1/2] still running: a:build", "[2/2] ✘ a:build (exit 2)"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b[") {
		t.Errorf("colour without a terminal:\n%q", got)
	}
}

func TestColourFollowsTheFlagAndNO_COLOR(t *testing.T) {
	var out testbed.Buffer
	for _, c := range []struct {
		flag string
		want bool
	}{{"always", true}, {"never", false}, {"auto", false}} { // auto: not a terminal
		if got, err := useColour(c.flag, &out); err != nil || got != c.want {
			t.Errorf("--color %s: %v %v", c.flag, got, err)
		}
	}
	if _, err := useColour("sometimes", &out); err == nil {
		t.Error("--color sometimes was accepted")
	}
}

func TestTheSummary(t *testing.T) {
	res := &runner.Result{Targets: []runner.TargetResult{
		{Target: "web:build", Status: runner.StateFailed, RunID: "r1", ExitCode: 1,
			Withheld: []targetenv.Hint{{Name: "NPM_TOKEN", Where: "its package.json script build"}}},
		{Target: "api:build", Status: runner.StateSucceeded},
	}}
	for _, c := range []struct {
		name, mode string
		want, not  []string
	}{
		{"a failure names the variable it was not given and the line to add", targetenv.Strict,
			[]string{"✘ web:build: exit 1 (core runs show r1)", "NPM_TOKEN (its package.json script build) is set here but withheld from web:build", "      pass_env: [NPM_TOKEN]\n"},
			[]string{"environment: loose"}},
		{"loose mode says so", targetenv.Loose,
			[]string{"environment: loose: every variable of core's environment reached the targets"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			summarize(&out, res, time.Second, nil, c.mode)
			for _, want := range c.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("the summary lacks %q:\n%s", want, out.String())
				}
			}
			for _, not := range c.not {
				if strings.Contains(out.String(), not) {
					t.Errorf("the summary says %q:\n%s", not, out.String())
				}
			}
		})
	}
}
