package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/corehq/core/internal/auth"

	viewerv1alpha1 "github.com/corehq/core/proto/gen/core/viewer/v1alpha1"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"
)

type runsMetrics struct {
	Marker         string   `json:"marker"`
	FirstRun       string   `json:"first_run"`
	TargetProcs    []proc   `json:"target_processes"`        // the sh and its sleep, seen before the kill
	Orphans        []proc   `json:"orphans,omitempty"`       // still alive orphan-wait after the kill
	ChildOrphans   []proc   `json:"child_orphans,omitempty"` // of those, core's own children (Pdeathsig must end them)
	AfterSecond    bool     `json:"orphan_alive_after_second"`
	GoneAfter      float64  `json:"gone_after_s"`       // seconds after the kill the last of them was gone (-1: never)
	CrashedStatus  string   `json:"crashed_run_status"` // ListRuns after the restart
	SecondRun      string   `json:"second_run"`
	SecondStatus   string   `json:"second_run_status"`
	OrphanAtSecond bool     `json:"orphan_alive_at_second_start"`
	RunLog         []string `json:"run_log"`
	Overlap        string   `json:"overlap,omitempty"`
	ServerExit     string   `json:"server_exit,omitempty"`
}

func runsFlags(fs *flag.FlagSet) func(*env) (*Result, error) {
	sleep := fs.Duration("sleep", 20*time.Second, "how long the target sleeps: longer than -orphan-wait plus a restart, so that an orphan outlives the check and overlaps the second run")
	orphanWait := fs.Duration("orphan-wait", 10*time.Second, "how long after the SIGKILL the target's processes may take to go")
	return func(e *env) (*Result, error) {
		return runRuns(e, *sleep, *orphanWait)
	}
}

// addProject inserts a project into the workspace's targets.yaml (as
// e2e's addProject does) and creates its directory.
func addProject(ws, name, body string) error {
	path := filepath.Join(ws, "targets.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	block := "projects:\n  " + name + ":\n    path: " + name + "\n" + body
	out := strings.Replace(string(data), "projects:\n", block, 1)
	if out == string(data) {
		return errors.New("targets.yaml has no `projects:` line")
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(ws, name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(ws, name, "README.md"), []byte("# "+name+"\n"), 0o644)
}

// postRun is POST /api/v1/diff/run {"target":target}; it returns the run id
// of the 202.
func postRun(srv *server, token, target string) (string, error) {
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/diff/run", strings.NewReader(`{"target":"`+target+`"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var v struct {
		Run struct {
			ID string `json:"id"`
		} `json:"run"`
	}
	if resp.StatusCode != http.StatusAccepted || json.Unmarshal(body, &v) != nil || v.Run.ID == "" {
		return "", fmt.Errorf("POST /api/v1/diff/run: %s: %.300s", resp.Status, body)
	}
	return v.Run.ID, nil
}

// runLog is run.log's lines.
func runLog(ws string) []string {
	b, _ := os.ReadFile(filepath.Join(ws, "run.log"))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// countPrefix is how many lines start with p.
func countPrefix(lines []string, p string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, p) {
			n++
		}
	}
	return n
}

func runRuns(e *env, sleep, orphanWait time.Duration) (*Result, error) {
	ws, err := e.workspace("runs")
	if err != nil {
		return nil, err
	}
	// The marker is the sh's $0, so the process carries it in its argv;
	// each line of run.log names the sh's pid.
	marker := fmt.Sprintf("core-reliability-%d", rand.Uint64())
	script := fmt.Sprintf(`echo start $$ >> ../run.log; sleep %d; echo end $$ >> ../run.log`, int(sleep.Seconds()))
	if err := addProject(ws, "sleeper", fmt.Sprintf("    targets:\n      sleep:\n        run: [sh, -c, %q, %s]\n", script, marker)); err != nil {
		return nil, err
	}
	m := &runsMetrics{Marker: marker, GoneAfter: -1}
	res := &Result{Metrics: m}
	var found []proc
	e.atClose(func() { killProcs(withMarker(marker)); killProcs(found) })

	home := e.home("runs")
	srv, err := e.startServer(ws, home)
	if err != nil {
		return nil, err
	}
	writer, err := srv.Mint("console=read", "console=write")
	if err != nil {
		return nil, err
	}
	if m.FirstRun, err = postRun(srv, writer, "sleeper:sleep"); err != nil {
		return nil, err
	}
	if err := waitFor(2*time.Minute, func() bool { return countPrefix(runLog(ws), "start") >= 1 }); err != nil {
		return nil, fmt.Errorf("run.log has no start 2m after the run was submitted:\n%s", srv.LogTail(20))
	}
	// The sh and its sleep.
	_ = waitFor(5*time.Second, func() bool { found = withMarker(marker); return len(found) >= 2 })
	if len(found) == 0 {
		return nil, fmt.Errorf("no process carries the marker %s", marker)
	}
	m.TargetProcs = found
	corePID := srv.PID

	srv.Kill()
	killed := time.Now()
	deadline := killed.Add(orphanWait)
	for {
		var alive []proc
		for _, p := range found {
			if p.alive() {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			m.GoneAfter = round2(time.Since(killed).Seconds())
			break
		}
		if time.Now().After(deadline) {
			m.Orphans = alive
			for _, p := range alive {
				if p.PPID == corePID {
					m.ChildOrphans = append(m.ChildOrphans, p)
				}
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	orphanAlive := func() bool {
		for _, p := range found {
			if p.alive() {
				return true
			}
		}
		return false
	}

	srv2, err := e.startServer(ws, home)
	if err != nil {
		return nil, fmt.Errorf("restart after SIGKILL: %w", err)
	}
	viewer := viewerv1alpha1connect.NewViewerServiceClient(&http.Client{Timeout: 30 * time.Second, Transport: auth.Transport{Token: writer}}, srv2.URL)
	ctx := context.Background()
	lr, err := viewer.ListRuns(ctx, &viewerv1alpha1.ListRunsRequest{Target: "sleeper:sleep"})
	if err != nil {
		return nil, fmt.Errorf("ListRuns after the restart: %w", err)
	}
	m.CrashedStatus = "(not listed)"
	for _, r := range lr.GetRuns() {
		if r.GetId() == m.FirstRun {
			m.CrashedStatus = r.GetStatus()
		}
	}

	starts := countPrefix(runLog(ws), "start")
	if m.SecondRun, err = postRun(srv2, writer, "sleeper:sleep"); err != nil {
		return nil, err
	}
	if err := waitFor(2*time.Minute, func() bool { return countPrefix(runLog(ws), "start") > starts }); err == nil {
		m.OrphanAtSecond = orphanAlive()
	}
	_ = waitFor(sleep+2*time.Minute, func() bool {
		r, err := viewer.GetRun(ctx, &viewerv1alpha1.GetRunRequest{Id: m.SecondRun})
		if err != nil {
			return false
		}
		m.SecondStatus = r.GetRun().GetStatus()
		return m.SecondStatus != "queued" && m.SecondStatus != "running"
	})
	// The next run ends what the crashed one left before it runs; anything
	// alive now was missed.
	m.AfterSecond = orphanAlive()
	// An orphan still sleeping writes its end now: give it the time.
	_ = waitFor(sleep, func() bool { return !orphanAlive() })
	m.RunLog = runLog(ws)
	m.Overlap = overlap(m.RunLog)
	if m.Overlap == "" && m.OrphanAtSecond {
		m.Overlap = "the second run started while the first run's process still ran"
	}
	killProcs(found)
	stopFail := srv2.stopCheck()
	m.ServerExit = stopFail

	fmt.Printf("target sleeper:sleep is `sh -c 'echo start $$ >> ../run.log; sleep %d; echo end $$ >> ../run.log' %s`; POST /api/v1/diff/run, SIGKILL to the server once run.log says start, restart, run again\n\n", int(sleep.Seconds()), marker)
	fmt.Println("| measure | value |")
	fmt.Println("| --- | --- |")
	var descr []string
	for _, p := range found {
		descr = append(descr, fmt.Sprintf("%d `%s`", p.PID, shortArgv(p.Argv, marker)))
	}
	fmt.Printf("| target processes before the kill | %s |\n", strings.Join(descr, ", "))
	if len(m.Orphans) > 0 {
		fmt.Printf("| alive %s after the kill | %d (%d of them core's own children) |\n", orphanWait, len(m.Orphans), len(m.ChildOrphans))
	} else {
		fmt.Printf("| gone after the kill | in %.2f s |\n", m.GoneAfter)
	}
	fmt.Printf("| the crashed run %s after the restart | %s |\n", m.FirstRun, m.CrashedStatus)
	fmt.Printf("| the second run %s | %s |\n", m.SecondRun, m.SecondStatus)
	fmt.Printf("| the first run's process alive when the second started | %v |\n", m.OrphanAtSecond)
	fmt.Printf("| run.log | %s |\n", strings.Join(m.RunLog, "; "))

	var fails []string
	// The command core started dies with it (Pdeathsig); what that command
	// started in turn may outlive core until the target runs again, which
	// ends it first (docs/decisions.md, "A crashed run's leftovers").
	if len(m.ChildOrphans) > 0 {
		fails = append(fails, fmt.Sprintf("the command core started survived the server's SIGKILL by %s (%s)", orphanWait, describe(m.ChildOrphans, marker)))
	}
	if m.AfterSecond {
		fails = append(fails, "processes of the crashed run were still alive after the next run of the target")
	}
	if m.CrashedStatus == "running" || m.CrashedStatus == "queued" {
		fails = append(fails, "after the restart ListRuns shows the crashed run as "+m.CrashedStatus)
	}
	if m.Overlap != "" {
		fails = append(fails, "two runs at once: "+m.Overlap)
	}
	if m.SecondStatus != "succeeded" {
		fails = append(fails, fmt.Sprintf("the second run ended %q, want succeeded", m.SecondStatus))
	}
	res.judge(fails, stopFail, func() string {
		gone := fmt.Sprintf("the target's processes went %.2f s after the SIGKILL", m.GoneAfter)
		if len(m.Orphans) > 0 {
			gone = fmt.Sprintf("core's child died with it; %d process(es) it started outlived the server until the next run ended them", len(m.Orphans))
		}
		return fmt.Sprintf("%s; the crashed run shows %s; the second run succeeded alone", gone, m.CrashedStatus)
	})
	return res, nil
}

// overlap finds two runs at once in run.log: a start while another
// started run has not ended and ends later.
func overlap(lines []string) string {
	started := map[string]int{} // pid -> line of its start
	ended := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == "end" {
			ended[f[1]] = true
		}
	}
	var open []string
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		switch f[0] {
		case "start":
			for _, p := range open {
				if ended[p] {
					return fmt.Sprintf("run.log line %d starts %s while %s, started on line %d, has not ended yet", i+1, f[1], p, started[p]+1)
				}
			}
			started[f[1]] = i
			open = append(open, f[1])
		case "end":
			for k, p := range open {
				if p == f[1] {
					open = append(open[:k], open[k+1:]...)
					break
				}
			}
		}
	}
	return ""
}

func shortArgv(argv []string, marker string) string {
	s := strings.Join(argv, " ")
	s = strings.ReplaceAll(s, marker, "MARKER")
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

func describe(ps []proc, marker string) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("pid %d %s", p.PID, shortArgv(p.Argv, marker)))
	}
	return strings.Join(out, ", ")
}
