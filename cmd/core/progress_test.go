package main

import (
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/runner"
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
