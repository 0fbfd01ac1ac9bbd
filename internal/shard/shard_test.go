package shard

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/runlog"
)

func TestParseSpec(t *testing.T) {
	for _, c := range []struct {
		name, spec string
		i, n       int
		err        string
	}{
		{"the second of four", "2/4", 2, 4, ""},
		{"one of one", "1/1", 1, 1, ""},
		{"a shard past N names the bounds", "5/4", 0, 0, "shard 5 of 4: I must be between 1 and N"},
		{"shard zero is not a shard", "0/4", 0, 0, "shard 0 of 4: I must be between 1 and N"},
		{"zero shards", "1/0", 0, 0, "shard 1 of 0: N must be between 1 and 256"},
		{"more shards than a matrix holds", "1/300", 0, 0, "N must be between 1 and 256"},
		{"a bare number says how to write it", "2", 0, 0, "write I/N"},
		{"words say how to write it", "two/four", 0, 0, "write I/N"},
	} {
		t.Run(c.name, func(t *testing.T) {
			i, n, err := ParseSpec(c.spec)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("ParseSpec(%q) = %v, want an error with %q", c.spec, err, c.err)
				}
				return
			}
			if err != nil || i != c.i || n != c.n {
				t.Fatalf("ParseSpec(%q) = %d, %d, %v", c.spec, i, n, err)
			}
		})
	}
}

func TestAConnectedGroupGoesWholeToOneShard(t *testing.T) {
	var ts []Target
	for g := range 4 {
		lib := fmt.Sprintf("lib%d:build", g)
		ts = append(ts, Target{ID: lib, Weight: 100})
		for s := range 3 {
			ts = append(ts, Target{ID: fmt.Sprintf("svc%d%d:test", g, s), Deps: []string{lib}, Weight: 100})
		}
	}
	p, err := Make(ts, 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range p.Shards {
		if len(s.Targets) != 4 || len(s.Needs) != 0 || s.WorkMS != 400 {
			t.Errorf("shard %s: %v, needs %v, %dms", s.Spec, s.Targets, s.Needs, s.WorkMS)
		}
		group := s.Targets[0][3:4]
		for _, id := range s.Targets {
			if id[3:4] != group {
				t.Errorf("shard %s mixes groups: %v", s.Spec, s.Targets)
			}
		}
	}
}

func TestASplitGroupSaysWhatEachShardNeeds(t *testing.T) {
	// One library and eight tests of it: too heavy for one of 4 shards.
	ts := []Target{{ID: "lib:build", Weight: 100}}
	for i := range 8 {
		ts = append(ts, Target{ID: fmt.Sprintf("svc%d:test", i), Deps: []string{"lib:build"}, Weight: 1000})
	}
	p, err := Make(ts, 4)
	if err != nil {
		t.Fatal(err)
	}
	holder := ""
	for _, s := range p.Shards {
		for _, id := range s.Targets {
			if id == "lib:build" {
				holder = s.Spec
			}
		}
	}
	for _, s := range p.Shards {
		if s.Spec == holder {
			if len(s.Needs) != 0 {
				t.Errorf("the shard that builds lib:build needs %v", s.Needs)
			}
			continue
		}
		if len(s.Needs) != 1 || s.Needs[0].Target != "lib:build" || s.Needs[0].From != holder || s.ColdMS != 100 {
			t.Errorf("shard %s needs %+v (cold %dms), want lib:build from %s (100ms)", s.Spec, s.Needs, s.ColdMS, holder)
		}
	}
	if p.LongestMS*4 > p.LowerBoundMS*5 {
		t.Errorf("longest %dms, lower bound %dms", p.LongestMS, p.LowerBoundMS)
	}
}

func TestTheMatricesListEveryShard(t *testing.T) {
	p, err := Make([]Target{{ID: "a:test", Weight: 1}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	gh, _ := json.Marshal(p.GitHub)
	gl, _ := json.Marshal(p.GitLab)
	if string(gh) != `{"include":[{"shard":"1/3"},{"shard":"2/3"},{"shard":"3/3"}]}` {
		t.Errorf("GitHub: %s", gh)
	}
	if string(gl) != `{"parallel":{"matrix":[{"SHARD":["1/3","2/3","3/3"]}]}}` {
		t.Errorf("GitLab: %s", gl)
	}
}

func TestACycleIsAnError(t *testing.T) {
	_, err := Make([]Target{{ID: "a:x", Deps: []string{"b:x"}}, {ID: "b:x", Deps: []string{"a:x"}}}, 2)
	if err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("Make of a cycle: %v", err)
	}
}

func TestWeigh(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	run := func(target string, secs int, cached bool, status string) runlog.Journal {
		return runlog.Journal{Target: target, Start: at, End: at.Add(time.Duration(secs) * time.Second), CacheHit: cached, Status: status}
	}
	history := []runlog.Journal{ // newest first
		run("api:test", 9, false, runlog.StateSucceeded),
		run("api:test", 1, true, runlog.StateCached), // a hit says nothing of the work
		run("api:test", 3, false, runlog.StateFailed),
		run("api:test", 4, false, runlog.StateSucceeded),
		run("web:test", 20, false, runlog.StateSucceeded),
		run("web:lint", 2, false, runlog.StateInterrupted), // cut short: not its length
	}
	got := Weigh([]Unweighed{{ID: "api:test"}, {ID: "new:test"}, {ID: "web:lint", Inputs: 10}, {ID: "new:build", Inputs: 50}}, history)
	for _, c := range []struct {
		name   string
		i      int
		weight int64
		source string
	}{
		{"a target's own runs that executed give the median", 0, 4000, FromHistory},
		{"a target never run takes its name's runs in other projects", 1, 9000, FromName},
		{"an interrupted run does not count", 2, 1200, FromSize},
		{"a target with no history by id or name weighs its inputs", 3, 2000, FromSize},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got[c.i].Weight != c.weight || got[c.i].Source != c.source {
				t.Errorf("%s: %dms by %s, want %dms by %s", got[c.i].ID, got[c.i].Weight, got[c.i].Source, c.weight, c.source)
			}
		})
	}
}

func journal(id, target, status, shard, plan string, cached bool, output string) runlog.Journal {
	start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	return runlog.Journal{ID: id, Target: target, Status: status, Shard: shard, ShardPlan: plan, CacheHit: cached,
		Start: start, End: start.Add(time.Second), Output: output, ExitCode: map[bool]int{true: 1}[status == runlog.StateFailed]}
}

func TestGather(t *testing.T) {
	t.Run("a failure on one shard wins over a success on another", func(t *testing.T) {
		rep := Gather([]Source{
			{Name: "a", Journals: []runlog.Journal{journal("r1", "lib:build", runlog.StateSucceeded, "1/2", "p", false, "")}},
			{Name: "b", Journals: []runlog.Journal{journal("r2", "lib:build", runlog.StateFailed, "2/2", "p", false, "boom")}},
		}, nil)
		if !rep.Failed || rep.Targets[0].Status != runlog.StateFailed || rep.Targets[0].Shard != "2/2" {
			t.Fatalf("%+v", rep)
		}
		if len(rep.Twice) != 1 || rep.Twice[0] != "lib:build (on 1/2, 2/2)" {
			t.Errorf("ran twice: %v", rep.Twice)
		}
	})
	t.Run("one directory may hold several shards' journals", func(t *testing.T) {
		rep := Gather([]Source{{Name: "all", Journals: []runlog.Journal{
			journal("r1", "lib:build", runlog.StateFailed, "1/2", "p", false, ""),
			journal("r2", "lib:build", runlog.StateSucceeded, "2/2", "p", false, ""),
		}}}, nil)
		if len(rep.Shards) != 2 || !rep.Failed || rep.Targets[0].Shard != "1/2" {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("a shard's latest run of a target is its result", func(t *testing.T) {
		rep := Gather([]Source{{Name: "a", Journals: []runlog.Journal{
			journal("r1", "api:test", runlog.StateFailed, "1/1", "p", false, ""),
			journal("r2", "api:test", runlog.StateSucceeded, "1/1", "p", false, ""),
		}}}, nil)
		if rep.Failed || rep.Targets[0].Status != runlog.StateSucceeded {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("shards that ran different plans fail the report", func(t *testing.T) {
		rep := Gather([]Source{
			{Name: "a", Journals: []runlog.Journal{journal("r1", "a:x", runlog.StateSucceeded, "1/2", "p1", false, "")}},
			{Name: "b", Journals: []runlog.Journal{journal("r2", "b:x", runlog.StateSucceeded, "2/2", "p2", false, "")}},
		}, nil)
		if !rep.Failed || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "2 different plans") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("a planned target without a result fails the report", func(t *testing.T) {
		plan, err := Make([]Target{{ID: "a:x", Weight: 1}, {ID: "b:x", Weight: 1}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		rep := Gather([]Source{{Name: "a", Journals: []runlog.Journal{journal("r1", "a:x", runlog.StateSucceeded, "1/2", plan.Digest, false, "")}}}, &plan)
		if !rep.Failed || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "1 planned targets have no result") || !strings.Contains(rep.Problems[0], "b:x") {
			t.Fatalf("%+v", rep.Problems)
		}
	})
	t.Run("a run its shard left running failed", func(t *testing.T) {
		rep := Gather([]Source{{Name: "a", Journals: []runlog.Journal{journal("r1", "a:x", runlog.StateRunning, "1/1", "p", false, "")}}}, nil)
		if !rep.Failed || !strings.Contains(rep.Targets[0].Err, "did not finish") {
			t.Fatalf("%+v", rep)
		}
	})
}

func TestTail(t *testing.T) {
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	long := strings.Repeat("x", 300) + "\n"
	for _, c := range []struct {
		name, in, starts string
		most             int
	}{
		{"a short output is whole", "a\nb\n", "a\nb", 10},
		{"a long output keeps its last lines and says so", strings.Join(lines, "\n"), "[… 40 earlier lines", MaxOutputBytes},
		{"a wide output keeps its last bytes and says so", strings.Repeat(long, 50), "[… earlier output left out", MaxOutputBytes + 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Tail(c.in)
			if !strings.HasPrefix(got, c.starts) || len(got) > c.most {
				t.Errorf("Tail: %d bytes starting %.60q", len(got), got)
			}
		})
	}
}

func TestMarkdownFencesAnOutputThatHasFences(t *testing.T) {
	rep := Gather([]Source{{Name: "a", Journals: []runlog.Journal{journal("r1", "a:x", runlog.StateFailed, "1/1", "p", false, "```\nnot the end\n```")}}}, nil)
	var b bytes.Buffer
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "````text\n```\nnot the end\n```\n````") {
		t.Errorf("the output's fences end the block:\n%s", b.String())
	}
}

func TestJUnitHasASuitePerShardAndAFailurePerFailedTarget(t *testing.T) {
	rep := Gather([]Source{
		{Name: "a", Journals: []runlog.Journal{journal("r1", "a:x", runlog.StateFailed, "1/2", "p", false, "<oops & more>")}},
		{Name: "b", Journals: []runlog.Journal{journal("r2", "b:x", runlog.StateCached, "2/2", "p", true, "")}},
	}, nil)
	var b bytes.Buffer
	if err := rep.JUnit(&b); err != nil {
		t.Fatal(err)
	}
	var x struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &x); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if x.Tests != 2 || x.Failures != 1 || len(x.Suites) != 2 || x.Suites[0].Name != "shard 1/2" || x.Suites[0].Cases[0].Failure.Text != "<oops & more>" {
		t.Errorf("%+v\n%s", x, b.String())
	}
}
