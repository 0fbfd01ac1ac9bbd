// Command reliability is core's reliability suite: scenarios that drive the
// real binary as a black box (a copy of testdata/demo, an isolated
// environment, `core server start --address 127.0.0.1:0`, the base URL and
// admin credential from <ws>/.core/server.json) and check that the server
// keeps holding under abuse. bench/reliability.sh builds core once and runs
// them all; each is also a subcommand of its own:
//
//	reliability fanout [-clients 1000] [-stalled 10] [-events 1500] ...
//	reliability soak   [-duration 3m] [-conns 32] [-sse 20] ...
//	reliability tokens [-n 200] [-kill 0.33] [-maxdelay 50ms]
//	reliability runs   [-sleep 20s] [-orphan-wait 10s]
//	reliability bodies
//	reliability summary FILE.json...
//
// Every scenario takes -core BIN (a built core; by default it builds
// ./cmd/core once into a temporary directory), -root DIR (the checkout;
// by default the go.mod above the working directory), -json FILE (write
// the result there) and -keep (leave the temporary workspaces). It prints
// its numbers as markdown, then one line "PASS: why" or "FAIL: why", and
// exits 1 on FAIL (2 on a usage error).
//
// What each proves:
//
//   - fanout: 1,000 healthy SSE subscribers of GET /api/v1/events each get
//     every `event: graph`, promptly, while a few subscribers that never
//     read (a tiny receive buffer, a raw TCP request) fill their sockets;
//     the delivery latency (file edit to receipt) is reported per event
//     over all healthy clients, with the server's RSS and whether the
//     server dropped the stalled clients.
//   - soak: a steady mix of graph reads (gzip), a graph query, GetStatus and
//     ListRuns with SSE streams open does not fail a request and does not
//     grow the server's RSS without bound (RSS sampled every second).
//   - tokens: `core config console token create` processes killed with
//     SIGKILL at random moments never lose a token that a process which
//     exited 0 printed, and never leave tokens.json unreadable.
//   - runs: killing the server with SIGKILL in the middle of a target's run
//     leaves no orphaned target process, the restarted server does not show
//     the crashed run as running, and a second run never overlaps the first.
//   - bodies: every POST row of routes.yaml refuses bodies over its limit,
//     plain and gzip that expands past it, and a truncated body is a 4xx
//     (the tests server/limits_test.go generates from the table).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Result is what a scenario found; -json writes it.
type Result struct {
	Scenario string         `json:"scenario"`
	Pass     bool           `json:"pass"`
	Reason   string         `json:"reason"`
	Date     time.Time      `json:"date"`
	Seconds  float64        `json:"seconds"`
	Params   map[string]any `json:"params"`
	Metrics  any            `json:"metrics,omitempty"`
	Notes    []string       `json:"notes,omitempty"`
}

// judge ends a scenario: the failed checks (and how the server stopped, ""
// when it stopped cleanly) become the reason of a FAIL; with none, the
// scenario passes and pass gives the reason.
func (r *Result) judge(fails []string, stopFail string, pass func() string) {
	if stopFail != "" {
		fails = append(fails, stopFail)
	}
	if len(fails) > 0 {
		r.Reason = strings.Join(fails, "; ")
		return
	}
	r.Pass, r.Reason = true, pass()
}

// scenario is one subcommand: flags registers its flags and returns the
// function that runs it.
type scenario struct {
	summary string
	flags   func(fs *flag.FlagSet) func(e *env) (*Result, error)
}

var scenarios = map[string]scenario{
	"fanout": {"SSE fan-out to many healthy clients with stalled ones mixed in", fanoutFlags},
	"soak":   {"a load soak with the server's RSS sampled every second", soakFlags},
	"tokens": {"token create CLI processes killed with SIGKILL at random moments", tokensFlags},
	"runs":   {"the server killed with SIGKILL during a target's run", runsFlags},
	"bodies": {"oversized and compressed bodies on every POST row of routes.yaml", bodiesFlags},
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: reliability SCENARIO [flags]   (reliability SCENARIO -h for its flags)")
	fmt.Fprintln(os.Stderr, "       reliability summary FILE.json...")
	names := make([]string, 0, len(scenarios))
	for n := range scenarios {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-7s %s\n", n, scenarios[n].summary)
	}
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	name := os.Args[1]
	if name == "summary" {
		os.Exit(summary(os.Args[2:]))
	}
	sc, ok := scenarios[name]
	if !ok {
		usage()
		os.Exit(2)
	}
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	var o options
	fs.StringVar(&o.core, "core", "", "a built core binary (default: build ./cmd/core into a temporary directory)")
	fs.StringVar(&o.root, "root", "", "the checkout of github.com/corehq/core (default: the go.mod above the working directory)")
	fs.StringVar(&o.jsonOut, "json", "", "write the result as JSON to this file")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary workspaces and server logs")
	run := sc.flags(fs)
	_ = fs.Parse(os.Args[2:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "reliability %s: unexpected arguments %q\n", name, fs.Args())
		os.Exit(2)
	}
	params := map[string]any{}
	fs.VisitAll(func(f *flag.Flag) {
		switch f.Name {
		case "core", "root", "json", "keep":
		default:
			params[f.Name] = f.Value.String()
		}
	})

	e, err := newEnv(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "reliability %s: %v\n", name, err)
		os.Exit(1)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		fmt.Fprintf(os.Stderr, "reliability %s: interrupted; stopping\n", name)
		e.close()
		os.Exit(130)
	}()

	start := time.Now()
	fmt.Printf("\n### %s: %s\n\n", name, sc.summary)
	res, err := run(e)
	if res == nil {
		res = &Result{}
	}
	res.Scenario, res.Date, res.Params = name, start.UTC(), params
	res.Seconds = time.Since(start).Seconds()
	if err != nil {
		res.Pass = false
		res.Reason = "error: " + err.Error()
	}
	e.close()
	for _, n := range res.Notes {
		fmt.Printf("- note: %s\n", n)
	}
	verdict := "FAIL"
	if res.Pass {
		verdict = "PASS"
	}
	fmt.Printf("\n%s: %s (%s)\n", verdict, res.Reason, time.Duration(res.Seconds*float64(time.Second)).Round(time.Second))
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(o.jsonOut, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "reliability %s: %v\n", name, err)
			os.Exit(1)
		}
	}
	if !res.Pass {
		os.Exit(1)
	}
}

// summary prints a markdown table of the results in files and exits 1 when
// one of them failed (or does not read).
func summary(files []string) int {
	code := 0
	fmt.Println("| scenario | result | time | why |")
	fmt.Println("| --- | --- | ---: | --- |")
	for _, f := range files {
		var r Result
		data, err := os.ReadFile(f)
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err == nil && r.Scenario == "" {
			err = errors.New("no scenario in it")
		}
		if err != nil {
			fmt.Printf("| %s | FAIL | | no result: %v |\n", f, err)
			code = 1
			continue
		}
		verdict := "PASS"
		if !r.Pass {
			verdict, code = "**FAIL**", 1
		}
		fmt.Printf("| %s | %s | %.0f s | %s |\n", r.Scenario, verdict, r.Seconds, strings.ReplaceAll(r.Reason, "|", `\|`))
	}
	return code
}
