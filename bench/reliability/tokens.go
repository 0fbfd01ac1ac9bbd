package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/corehq/core/bench/internal/stats"
	"github.com/corehq/core/internal/testbed"
)

type tokensMetrics struct {
	Processes      int        `json:"processes"`
	KillsSent      int        `json:"kills_sent"`
	Killed         int        `json:"killed"`      // ended by SIGKILL
	ExitedZero     int        `json:"exited_zero"` // exited 0 (including those whose kill came too late)
	ExitedOther    int        `json:"exited_other"`
	OtherErrors    []string   `json:"other_errors,omitempty"`
	Printed        int        `json:"printed"`        // tokens printed by processes that exited 0
	Authenticated  int        `json:"authenticated"`  // of those, answered 200 by GET /api/v1/graph
	Listed         int        `json:"listed"`         // of those, listed by token list
	ListTotal      int        `json:"list_total"`     // tokens token list shows
	KilledPrinted  int        `json:"killed_printed"` // killed after printing a token (not required to work)
	KilledWorking  int        `json:"killed_working"` // of those, tokens that work
	ListExit       int        `json:"list_exit"`
	StoredByKilled int        `json:"stored_by_killed"`    // tokens listed that no process which exited 0 printed: killed after the write
	Leftovers      []string   `json:"leftovers,omitempty"` // temporary files left in .core
	Lost           []string   `json:"lost,omitempty"`
	ExitMs         [3]float64 `json:"exit0_min_p50_max_ms"` // how long the processes that exited 0 ran
	KillTooLate    int        `json:"kill_too_late"`        // sent SIGKILL, but had exited 0 already
	KillMs         [3]float64 `json:"kill_min_p50_max_ms"`  // when the SIGKILLs went out, after the fork
	ServerExit     string     `json:"server_exit,omitempty"`
}

func tokensFlags(fs *flag.FlagSet) func(*env) (*Result, error) {
	n := fs.Int("n", 200, "token create processes, all started at once")
	kill := fs.Float64("kill", 1.0/3, "the fraction of them sent SIGKILL")
	maxDelay := fs.Duration("maxdelay", 50*time.Millisecond, "each SIGKILL comes after a random delay up to this from the process's start")
	seed := fs.Uint64("seed", 0, "random seed (0: from the clock)")
	return func(e *env) (*Result, error) {
		return runTokens(e, *n, *kill, *maxDelay, *seed)
	}
}

// tokenProc is one `core config console token create`.
type tokenProc struct {
	kill           bool
	delay          time.Duration
	stdout, stderr bytes.Buffer
	code           int // exit status, 128+signal when signalled
	err            error
	took           time.Duration // start to exit
	killedAt       time.Duration // when the SIGKILL went out (a loaded machine delays it)
}

var createdRE = regexp.MustCompile(`created console token (tok_[0-9a-f]+) `)

func runTokens(e *env, n int, killFrac float64, maxDelay time.Duration, seed uint64) (*Result, error) {
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	ws, err := e.workspace("tokens")
	if err != nil {
		return nil, err
	}
	home := e.home("tokens")
	srv, err := e.startServer(ws, home)
	if err != nil {
		return nil, err
	}
	m := &tokensMetrics{Processes: n}
	res := &Result{Metrics: m, Notes: []string{fmt.Sprintf("seed %d", seed)}}

	procs := make([]*tokenProc, n)
	for i, k := range rng.Perm(n) {
		procs[k] = &tokenProc{kill: float64(i) < killFrac*float64(n)}
		if procs[k].kill {
			procs[k].delay = time.Duration(rng.Int64N(int64(maxDelay) + 1))
			m.KillsSent++
		}
	}
	env := testbed.IsolatedEnv(home)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, e.core, "--workspace", ws, "config", "console", "token", "create", "--grant", "console=read")
			cmd.Env, cmd.Dir = env, home
			cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
			<-start
			t0 := time.Now()
			if err := cmd.Start(); err != nil {
				p.err, p.code = err, -1
				return
			}
			if p.kill { // the delay counts from the fork
				t := time.AfterFunc(max(0, p.delay-time.Since(t0)), func() { p.killedAt = time.Since(t0); _ = cmd.Process.Kill() })
				defer t.Stop()
			}
			err := cmd.Wait()
			p.took = time.Since(t0)
			var exit *exec.ExitError
			switch {
			case err == nil:
			case errors.As(err, &exit):
				p.code = exit.ExitCode()
				if st, ok := exit.Sys().(syscall.WaitStatus); ok && st.Signaled() {
					p.code = 128 + int(st.Signal())
				}
			default:
				p.err, p.code = err, -1
			}
		}()
	}
	close(start)
	wg.Wait()

	// What each process printed, and whether the tokens work.
	hc := &http.Client{Timeout: 30 * time.Second}
	works := func(secret string) bool {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/graph", nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := hc.Do(req)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	var ids []string
	var took, killedAt []float64
	others := map[string]int{}
	for i, p := range procs {
		id, secret := printedToken(p.stdout.String())
		switch {
		case p.code == 0:
			if p.kill {
				m.KillTooLate++
			}
			m.ExitedZero++
			took = append(took, stats.Ms(p.took))
			if secret == "" || id == "" {
				m.Lost = append(m.Lost, fmt.Sprintf("process %d exited 0 without printing a token: %q", i, p.stdout.String()))
				continue
			}
			m.Printed++
			ids = append(ids, id)
			if works(secret) {
				m.Authenticated++
			} else {
				m.Lost = append(m.Lost, fmt.Sprintf("%s (process %d, exited 0) does not authenticate", id, i))
			}
		case p.code == 128+int(syscall.SIGKILL):
			m.Killed++
			killedAt = append(killedAt, stats.Ms(p.killedAt))
			if secret != "" {
				m.KilledPrinted++
				if works(secret) {
					m.KilledWorking++
				}
			}
		default:
			m.ExitedOther++
			msg := strings.TrimSpace(p.stderr.String())
			if p.err != nil {
				msg = p.err.Error()
			}
			others[fmt.Sprintf("exit %d: %.200s", p.code, msg)]++
		}
	}
	for msg, k := range others {
		m.OtherErrors = append(m.OtherErrors, fmt.Sprintf("%d× %s", k, msg))
	}
	sort.Strings(m.OtherErrors)
	m.KillMs = [3]float64{round2(stats.Percentile(killedAt, 0)), round2(stats.Percentile(killedAt, 50)), round2(stats.Percentile(killedAt, 100))}
	m.ExitMs = [3]float64{round2(stats.Percentile(took, 0)), round2(stats.Percentile(took, 50)), round2(stats.Percentile(took, 100))}

	// tokens.json must load, and list every token a process that exited 0
	// printed.
	list := exec.Command(e.core, "--workspace", ws, "config", "console", "token", "list")
	list.Env, list.Dir = env, home
	var lout, lerr bytes.Buffer
	list.Stdout, list.Stderr = &lout, &lerr
	if err := list.Run(); err != nil {
		m.ListExit = -1
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			m.ListExit = exit.ExitCode()
		}
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(lout.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "tok_") {
			listed[f[0]] = true
		}
	}
	m.ListTotal = len(listed)
	for _, id := range ids {
		if listed[id] {
			m.Listed++
		} else if m.ListExit == 0 {
			m.Lost = append(m.Lost, id+" is not listed by token list")
		}
	}
	m.StoredByKilled = m.ListTotal - m.Listed
	ents, _ := os.ReadDir(filepath.Join(ws, ".core"))
	for _, d := range ents {
		if strings.Contains(d.Name(), "tmp") {
			m.Leftovers = append(m.Leftovers, d.Name())
		}
	}
	stopFail := srv.stopCheck()
	m.ServerExit = stopFail

	fmt.Printf("%d `core config console token create` processes started at once on one workspace with a running server; %d of them sent SIGKILL after 0-%s\n\n", n, m.KillsSent, maxDelay)
	fmt.Println("| measure | value |")
	fmt.Println("| --- | ---: |")
	fmt.Printf("| ended by SIGKILL | %d (the signal went out %.0f / %.0f / %.0f ms min / p50 / max after the fork; %d more had exited 0 first) |\n", m.Killed, m.KillMs[0], m.KillMs[1], m.KillMs[2], m.KillTooLate)
	fmt.Printf("| exited 0 | %d (ran %.0f / %.0f / %.0f ms min / p50 / max) |\n", m.ExitedZero, m.ExitMs[0], m.ExitMs[1], m.ExitMs[2])
	fmt.Printf("| exited otherwise | %d |\n", m.ExitedOther)
	fmt.Printf("| tokens printed by processes that exited 0 | %d |\n", m.Printed)
	fmt.Printf("| of those, authenticate (GET /api/v1/graph 200) | %d |\n", m.Authenticated)
	fmt.Printf("| of those, listed by `token list` | %d (exit %d, %d tokens listed) |\n", m.Listed, m.ListExit, m.ListTotal)
	fmt.Printf("| killed after printing a token / whose token works | %d / %d |\n", m.KilledPrinted, m.KilledWorking)
	fmt.Printf("| tokens stored by killed processes (listed, never printed by one that exited 0) | %d |\n", m.StoredByKilled)
	fmt.Printf("| temporary files left in .core | %d |\n", len(m.Leftovers))
	for _, o := range m.OtherErrors {
		fmt.Println("- other exit:", o)
	}
	for _, l := range m.Lost[:min(10, len(m.Lost))] {
		fmt.Println("- lost:", l)
	}

	var fails []string
	if len(m.Lost) > 0 {
		fails = append(fails, fmt.Sprintf("%d printed tokens lost (first: %s)", len(m.Lost), m.Lost[0]))
	}
	if m.ListExit != 0 {
		fails = append(fails, fmt.Sprintf("token list exited %d: %.300s", m.ListExit, strings.TrimSpace(lerr.String())))
	}
	if m.ExitedOther > 0 {
		fails = append(fails, fmt.Sprintf("%d processes that were not killed failed (%s)", m.ExitedOther, m.OtherErrors[0]))
	}
	res.judge(fails, stopFail, func() string {
		return fmt.Sprintf("all %d tokens printed by processes that exited 0 authenticate and are listed; %d killed; tokens.json loads", m.Printed, m.Killed)
	})
	return res, nil
}

// printedToken is the id and the secret a token create printed: the
// secret alone on the last line.
func printedToken(stdout string) (id, secret string) {
	m := createdRE.FindStringSubmatch(stdout)
	lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if m == nil || last == "" || strings.ContainsAny(last, " \t") {
		return "", ""
	}
	return m[1], last
}
