package e2e

// Runs: POST /api/v1/diff/run and the viewer service over HTTP and the
// generated clients, `core run` from the CLI, and the journal of a run whose
// process was killed. The helpers at the top (service clients, the Go
// toolchain's environment, git, workspace edits) serve jobs_test.go and
// services_test.go too.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/proto/gen/core/activity/v1alpha1/activityv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/metrics/v1alpha1/metricsv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/notes/v1alpha1/notesv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/status/v1alpha1/statusv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/tool/v1alpha1/toolv1alpha1connect"
	"github.com/corehq/core/proto/gen/core/viewer/v1alpha1/viewerv1alpha1connect"

	activityv1alpha1 "github.com/corehq/core/proto/gen/core/activity/v1alpha1"
	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
	metricsv1alpha1 "github.com/corehq/core/proto/gen/core/metrics/v1alpha1"
	viewerv1alpha1 "github.com/corehq/core/proto/gen/core/viewer/v1alpha1"
)

// ---- service clients ------------------------------------------------------

// bearerHTTP is an HTTP client for the generated Connect clients that sends
// token as its bearer.
func bearerHTTP(token string) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: auth.Transport{Token: token, Next: httpClient.Transport}}
}

func svcViewer(s *Server, token string) viewerv1alpha1connect.ViewerServiceClient {
	return viewerv1alpha1connect.NewViewerServiceClient(bearerHTTP(token), s.URL)
}

func svcJobs(s *Server, token string) jobv1alpha1connect.JobServiceClient {
	return jobv1alpha1connect.NewJobServiceClient(bearerHTTP(token), s.URL)
}

func svcStatus(s *Server, token string) statusv1alpha1connect.StatusServiceClient {
	return statusv1alpha1connect.NewStatusServiceClient(bearerHTTP(token), s.URL)
}

func svcActivity(s *Server, token string) activityv1alpha1connect.ActivityServiceClient {
	return activityv1alpha1connect.NewActivityServiceClient(bearerHTTP(token), s.URL)
}

func svcTools(s *Server, token string) toolv1alpha1connect.ToolServiceClient {
	return toolv1alpha1connect.NewToolServiceClient(bearerHTTP(token), s.URL)
}

func svcNotes(s *Server, token string) notesv1alpha1connect.NotesServiceClient {
	return notesv1alpha1connect.NewNotesServiceClient(bearerHTTP(token), s.URL)
}

func svcMetrics(s *Server, token string) metricsv1alpha1connect.MetricsServiceClient {
	return metricsv1alpha1connect.NewMetricsServiceClient(bearerHTTP(token), s.URL)
}

// metricCounters is GetMetrics' counters.
func metricCounters(t testing.TB, s *Server) map[string]int64 {
	t.Helper()
	res, err := svcMetrics(s, s.AdminToken).GetMetrics(rpcCtx(t), &metricsv1alpha1.GetMetricsRequest{})
	if err != nil {
		t.Fatalf("GetMetrics: %v", err)
	}
	return res.GetCounters()
}

// activityTrail lists the whole activity trail (newest first, as served).
func activityTrail(t testing.TB, s *Server) []*activityv1alpha1.Activity {
	t.Helper()
	res, err := svcActivity(s, s.AdminToken).ListActivities(rpcCtx(t), &activityv1alpha1.ListActivitiesRequest{Limit: 1000})
	if err != nil {
		t.Fatalf("ListActivities: %v", err)
	}
	return res.GetActivities()
}

// waitActivity polls the activity trail until match accepts an entry.
func waitActivity(t testing.TB, s *Server, what string, match func(*activityv1alpha1.Activity) bool) *activityv1alpha1.Activity {
	t.Helper()
	var found *activityv1alpha1.Activity
	var last []*activityv1alpha1.Activity
	deadline := time.Now().Add(pollTimeout)
	for found == nil {
		last = activityTrail(t, s)
		for _, a := range last {
			if match(a) {
				found = a
				break
			}
		}
		if found != nil {
			break
		}
		if time.Now().After(deadline) {
			var msgs []string
			for _, a := range last {
				msgs = append(msgs, a.GetKind()+" "+a.GetSubject()+": "+a.GetMessage())
			}
			t.Fatalf("no activity %s within %s; the trail holds:\n%s", what, pollTimeout, strings.Join(msgs, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return found
}

// jobsByName is ListJobs keyed by name.
func jobsByName(t testing.TB, s *Server) map[string]*jobv1alpha1.Job {
	t.Helper()
	res, err := svcJobs(s, s.AdminToken).ListJobs(rpcCtx(t), &jobv1alpha1.ListJobsRequest{})
	if err != nil {
		t.Fatalf("ListJobs: %v", err)
	}
	out := map[string]*jobv1alpha1.Job{}
	for _, j := range res.GetJobs() {
		out[j.GetName()] = j
	}
	return out
}

// waitJobIdle polls ListJobs until the job is idle and has a last run, and
// returns it.
func waitJobIdle(t testing.TB, s *Server, name string) *jobv1alpha1.Job {
	t.Helper()
	var j *jobv1alpha1.Job
	eventually(t, name+" is idle with a last run", func() bool {
		j = jobsByName(t, s)[name]
		return j != nil && j.GetState() == "idle" && j.GetLastRun() != nil
	})
	return j
}

// getRun is ViewerService.GetRun.
func getRun(t testing.TB, s *Server, id string) *viewerv1alpha1.GetRunResponse {
	t.Helper()
	res, err := svcViewer(s, s.AdminToken).GetRun(rpcCtx(t), &viewerv1alpha1.GetRunRequest{Id: id})
	if err != nil {
		t.Fatalf("GetRun(%s): %v", id, err)
	}
	return res
}

// waitRunEnds polls GetRun until the run leaves queued and running.
func waitRunEnds(t testing.TB, s *Server, id string) *viewerv1alpha1.GetRunResponse {
	t.Helper()
	var r *viewerv1alpha1.GetRunResponse
	eventually(t, "run "+id+" ends", func() bool {
		r = getRun(t, s, id)
		st := r.GetRun().GetStatus()
		return st != "queued" && st != "running"
	})
	return r
}

// listRuns is ViewerService.ListRuns for target ("" for all).
func listRuns(t testing.TB, s *Server, target string) []*viewerv1alpha1.Run {
	t.Helper()
	res, err := svcViewer(s, s.AdminToken).ListRuns(rpcCtx(t), &viewerv1alpha1.ListRunsRequest{Target: target})
	if err != nil {
		t.Fatalf("ListRuns(%q): %v", target, err)
	}
	return res.GetRuns()
}

// ---- environment: the Go toolchain, git ----------------------------------

var (
	goEnvOnce sync.Once
	goEnvVars []string
)

// hostGoEnv is the Go toolchain's environment of the machine running the
// tests (build cache, module cache, flags), for core processes that run the
// demo's Go targets: their HOME is a fresh directory, and a cold build
// cache would make every `go build` compile the standard library again.
func hostGoEnv(t testing.TB) []string {
	t.Helper()
	goEnvOnce.Do(func() {
		out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE", "GOFLAGS").Output()
		if err != nil {
			return
		}
		var v struct{ GOCACHE, GOMODCACHE, GOFLAGS string }
		if json.Unmarshal(out, &v) != nil || v.GOCACHE == "" {
			return
		}
		goEnvVars = []string{
			"GOCACHE=" + v.GOCACHE, "GOMODCACHE=" + v.GOMODCACHE, "GOFLAGS=" + v.GOFLAGS,
			"GOTOOLCHAIN=local", "GOPROXY=off",
		}
	})
	if goEnvVars == nil {
		t.Fatal("`go env -json GOCACHE GOMODCACHE GOFLAGS` failed")
	}
	return append([]string(nil), goEnvVars...)
}

// wsGitEnv is the environment of git for the tests and for the core
// processes that run git: no system or global configuration.
var wsGitEnv = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C"}

// wsGit runs git in dir with an isolated configuration and a fixed identity,
// fails the test on an error, and returns the trimmed stdout.
func wsGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	full := append([]string{"-c", "user.name=Core E2E", "-c", "user.email=e2e@example.com",
		"-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main", "-C", dir}, args...)
	cmd := exec.Command("git", full...)
	cmd.Env = isolatedEnv(t, wsGitEnv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return strings.TrimSpace(stdout.String())
}

// wsGitInit makes ws a repository on main with everything committed.
func wsGitInit(t testing.TB, ws string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	wsGit(t, ws, "init", "-q", "-b", "main")
	wsGit(t, ws, "add", "-A")
	wsGit(t, ws, "commit", "-q", "-m", "demo")
}

// ---- workspace edits -----------------------------------------------------

// addProject inserts a project (YAML of its body, indented four spaces
// under its name) into the workspace's targets.yaml and creates its
// directory (named like the project).
func addProject(t testing.TB, ws, name, body string) {
	t.Helper()
	path := filepath.Join(ws, "targets.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block := "projects:\n  " + name + ":\n    path: " + name + "\n" + body
	if !strings.HasSuffix(block, "\n") {
		block += "\n"
	}
	out := strings.Replace(string(data), "projects:\n", block, 1)
	if out == string(data) {
		t.Fatal("targets.yaml has no `projects:` line")
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, name, "README.md"), []byte("# "+name+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addSpell inserts a spell into the workspace's targets.yaml.
func addSpell(t testing.TB, ws, name, body string) {
	t.Helper()
	path := filepath.Join(ws, "targets.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(data), "spells:\n", "spells:\n  "+name+":\n"+body, 1)
	if out == string(data) {
		t.Fatal("targets.yaml has no `spells:` line")
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ---- POST /api/v1/diff/run and the viewer --------------------------------

// postRun is POST /api/v1/diff/run with body.
func postRun(t testing.TB, s *Server, token, body string) response {
	t.Helper()
	return do(t, newRequest(t, http.MethodPost, s.URL+"/api/v1/diff/run", token, strings.NewReader(body), "Content-Type", "application/json"))
}

// startedRun decodes the 202 answer of diff/run, which must be exactly
// {"run":{"id","target","status"}}.
func startedRun(t testing.TB, r response) (id, target, status string) {
	t.Helper()
	if r.Status != http.StatusAccepted {
		t.Fatalf("diff/run: want 202\n%s", r)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("diff/run Content-Type = %q, want application/json", ct)
	}
	var body struct {
		Run *struct {
			ID     *string `json:"id"`
			Target *string `json:"target"`
			Status *string `json:"status"`
		} `json:"run"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Run == nil || body.Run.ID == nil || body.Run.Target == nil || body.Run.Status == nil {
		t.Fatalf(`diff/run body is not {"run":{"id","target","status"}} (%v)\n%s`, err, r)
	}
	return *body.Run.ID, *body.Run.Target, *body.Run.Status
}

// planStates is GET /api/v1/plan: each target node's state by node id.
func planStates(t testing.TB, s *Server, token string) map[string]string {
	t.Helper()
	r := get(t, s.URL+"/api/v1/plan", token)
	if r.Status != http.StatusOK {
		t.Fatalf("GET /api/v1/plan: want 200\n%s", r)
	}
	var g struct {
		Nodes []struct {
			ID    string `json:"id"`
			Kind  string `json:"kind"`
			State string `json:"state"`
		} `json:"nodes"`
	}
	if err := json.Unmarshal(r.Body, &g); err != nil {
		t.Fatalf("the plan is not a graph: %v\n%s", err, r)
	}
	out := map[string]string{}
	for _, n := range g.Nodes {
		out[n.ID] = n.State
	}
	return out
}

func runIDs(runs []*viewerv1alpha1.Run) []string {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.GetId()
	}
	return ids
}

// TestDiffRun starts runs through POST /api/v1/diff/run and follows them in
// the viewer service and the plan; it ends with the metrics they left.
func TestDiffRun(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	addProject(t, ws, "broken", `    targets:
      fail:
        run: [sh, -c, "echo boom; exit 3"]
      after:
        run: [sh, -c, "echo after-ran"]
        deps: [fail]
`)
	_, reader := createToken(t, ws, "--grant", "console=read")
	s := startServer(t, ws, hostGoEnv(t)...)
	viewer := svcViewer(s, s.AdminToken)

	var firstID string
	t.Run("diff_run_answers_202_with_the_run_and_the_viewer_shows_it_at_once", func(t *testing.T) {
		id, target, status := startedRun(t, postRun(t, s, s.AdminToken, `{"target":"util:build"}`))
		if target != "util:build" {
			t.Errorf("run.target = %q, want util:build", target)
		}
		if status != "queued" {
			t.Errorf("run.status = %q, want queued", status)
		}
		// At once: no polling before the first GetRun.
		res, err := viewer.GetRun(rpcCtx(t), &viewerv1alpha1.GetRunRequest{Id: id})
		if err != nil {
			t.Fatalf("GetRun right after the 202: %v", err)
		}
		if st := res.GetRun().GetStatus(); !slices.Contains([]string{"queued", "running", "succeeded"}, st) {
			t.Errorf("GetRun right after the 202: status %q, want queued, running or succeeded", st)
		}
		if got := res.GetRun().GetTarget(); got != "util:build" {
			t.Errorf("GetRun target = %q, want util:build", got)
		}
		firstID = id
	})
	if firstID == "" {
		t.FailNow()
	}

	t.Run("the_run_succeeds_with_the_argv_targets_yaml_declares", func(t *testing.T) {
		r := waitRunEnds(t, s, firstID)
		if st := r.GetRun().GetStatus(); st != "succeeded" {
			t.Fatalf("run %s ended %q, want succeeded (exit %d)\n%s", firstID, st, r.GetRun().GetExitCode(), r.GetOutput())
		}
		if want := []string{"go", "build", "./..."}; !slices.Equal(r.GetArgv(), want) {
			t.Errorf("argv = %q, want %q", r.GetArgv(), want)
		}
		if r.GetDir() != "libs/util" {
			t.Errorf("dir = %q, want libs/util", r.GetDir())
		}
		if r.GetRun().GetExitCode() != 0 || r.GetRun().GetCacheHit() {
			t.Errorf("exit %d cache_hit %v, want 0 and false", r.GetRun().GetExitCode(), r.GetRun().GetCacheHit())
		}
		if r.GetRun().GetTrigger() != "console" {
			t.Errorf("trigger = %q, want console", r.GetRun().GetTrigger())
		}
		if r.GetRun().GetEndTime() == nil || r.GetRun().GetEndTime().AsTime().Before(r.GetRun().GetStartTime().AsTime()) {
			t.Errorf("end time %v is missing or before the start %v", r.GetRun().GetEndTime(), r.GetRun().GetStartTime())
		}
	})

	t.Run("the_viewer_keeps_the_captured_output_of_a_run", func(t *testing.T) {
		id, _, _ := startedRun(t, postRun(t, s, s.AdminToken, `{"target":"schemas:build"}`))
		r := waitRunEnds(t, s, id)
		if st := r.GetRun().GetStatus(); st != "succeeded" {
			t.Fatalf("schemas:build ended %q, want succeeded\n%s", st, r.GetOutput())
		}
		if !strings.Contains(r.GetOutput(), "checked 3 schemas") {
			t.Errorf("output = %q, want what check.py printed (checked 3 schemas)", r.GetOutput())
		}
		if want := []string{"python3", "check.py"}; !slices.Equal(r.GetArgv(), want) {
			t.Errorf("argv = %q, want %q", r.GetArgv(), want)
		}
	})

	t.Run("list_runs_lists_the_run_and_filters_by_target", func(t *testing.T) {
		all := runIDs(listRuns(t, s, ""))
		if !slices.Contains(all, firstID) {
			t.Errorf("ListRuns() = %q, want it to hold %s", all, firstID)
		}
		util := listRuns(t, s, "util:build")
		if !slices.Contains(runIDs(util), firstID) {
			t.Errorf("ListRuns(util:build) = %q, want it to hold %s", runIDs(util), firstID)
		}
		for _, r := range util {
			if r.GetTarget() != "util:build" {
				t.Errorf("ListRuns(util:build) holds a run of %s", r.GetTarget())
			}
		}
		for _, r := range listRuns(t, s, "schemas:build") {
			if r.GetTarget() != "schemas:build" || r.GetId() == firstID {
				t.Errorf("ListRuns(schemas:build) holds run %s of %s", r.GetId(), r.GetTarget())
			}
		}
		if got := listRuns(t, s, "web:build"); len(got) != 0 {
			t.Errorf("ListRuns(web:build) = %q, want none: it never ran", runIDs(got))
		}
	})

	t.Run("a_second_run_of_the_same_target_ends_cached", func(t *testing.T) {
		id, _, _ := startedRun(t, postRun(t, s, s.AdminToken, `{"target":"util:build"}`))
		if id == firstID {
			t.Fatalf("the second run reuses id %s", id)
		}
		r := waitRunEnds(t, s, id)
		if st := r.GetRun().GetStatus(); st != "cached" || !r.GetRun().GetCacheHit() {
			t.Errorf("second run: status %q cache_hit %v, want cached and true", st, r.GetRun().GetCacheHit())
		}
		first := getRun(t, s, firstID)
		if r.GetRun().GetCacheKey() == "" || r.GetRun().GetCacheKey() != first.GetRun().GetCacheKey() {
			t.Errorf("cache key %q, want the first run's %q", r.GetRun().GetCacheKey(), first.GetRun().GetCacheKey())
		}
		if got := runIDs(listRuns(t, s, "util:build")); len(got) < 2 || got[0] != id {
			t.Errorf("ListRuns(util:build) = %q, want the cached run %s first (newest first)", got, id)
		}
	})

	t.Run("the_run_is_in_the_activity_trail", func(t *testing.T) {
		waitActivity(t, s, "of the first util:build run", func(a *activityv1alpha1.Activity) bool {
			return a.GetKind() == "run" && a.GetSubject() == "target:util:build" &&
				strings.Contains(a.GetMessage(), "util:build succeeded") && strings.Contains(a.GetMessage(), firstID)
		})
	})

	t.Run("a_run_whose_dependency_fails_ends_failed_without_running", func(t *testing.T) {
		id, _, _ := startedRun(t, postRun(t, s, s.AdminToken, `{"target":"broken:after"}`))
		r := waitRunEnds(t, s, id)
		if st := r.GetRun().GetStatus(); st != "failed" {
			t.Errorf("broken:after ended %q, want failed: its dependency broken:fail exits 3", st)
		}
		if strings.Contains(r.GetOutput(), "after-ran") {
			t.Errorf("broken:after ran although its dependency failed: %q", r.GetOutput())
		}
		dep := listRuns(t, s, "broken:fail")
		if len(dep) != 1 || dep[0].GetStatus() != "failed" || dep[0].GetExitCode() != 3 {
			t.Fatalf("ListRuns(broken:fail) = %v, want one failed run with exit 3", dep)
		}
		if out := getRun(t, s, dep[0].GetId()).GetOutput(); !strings.Contains(out, "boom") {
			t.Errorf("broken:fail output = %q, want boom", out)
		}
		states := planStates(t, s, reader)
		if states["target:broken:fail"] != "failed" || states["target:broken:after"] != "failed" {
			t.Errorf("plan states: fail %q after %q, want failed and failed", states["target:broken:fail"], states["target:broken:after"])
		}
	})

	t.Run("list_runs_is_newest_first_and_checks_its_limit", func(t *testing.T) {
		// Run ids start with their creation time, so newest first is
		// descending ids.
		runs := listRuns(t, s, "")
		for i := 1; i < len(runs); i++ {
			if runs[i-1].GetId() <= runs[i].GetId() {
				t.Errorf("ListRuns is not newest first: %s before %s", runs[i-1].GetId(), runs[i].GetId())
			}
		}
		one, err := viewer.ListRuns(rpcCtx(t), &viewerv1alpha1.ListRunsRequest{Limit: 1})
		if err != nil || len(one.GetRuns()) != 1 || one.GetRuns()[0].GetId() != runs[0].GetId() {
			t.Errorf("ListRuns(limit 1) = %v (%v), want the newest run %s", one.GetRuns(), err, runs[0].GetId())
		}
		for _, limit := range []int32{-1, 501} {
			_, err := viewer.ListRuns(rpcCtx(t), &viewerv1alpha1.ListRunsRequest{Limit: limit})
			wantConnectCode(t, err, connect.CodeInvalidArgument)
		}
	})

	t.Run("list_runs_order_agrees_with_the_start_times", func(t *testing.T) {
		runs := listRuns(t, s, "")
		for i := 1; i < len(runs); i++ {
			a, b := runs[i-1], runs[i]
			if a.GetStartTime().AsTime().Before(b.GetStartTime().AsTime()) {
				t.Fatalf("ListRuns (newest first) lists %s (%s, start %s) before %s (%s, start %s), which started later: "+
					"a diff/run's id is made at submission (Runner.Start), but its journal's start time is rewritten when the target "+
					"executes, is served from the cache, or is failed for a dependency (runner.finish writes Start = now), so ids no "+
					"longer sort by start time as journal.go says",
					a.GetId(), a.GetTarget(), a.GetStartTime().AsTime().Format(time.RFC3339Nano),
					b.GetId(), b.GetTarget(), b.GetStartTime().AsTime().Format(time.RFC3339Nano))
			}
		}
	})

	t.Run("the_plan_shows_the_state_of_the_target", func(t *testing.T) {
		states := planStates(t, s, reader)
		if got := states["target:util:build"]; got != "cached" {
			t.Errorf("plan state of target:util:build = %q, want cached (its last run)", got)
		}
		if got := states["target:schemas:build"]; got != "succeeded" {
			t.Errorf("plan state of target:schemas:build = %q, want succeeded", got)
		}
		if got := states["target:web:build"]; got != "idle" {
			t.Errorf("plan state of target:web:build = %q, want idle: it never ran", got)
		}
	})

	t.Run("bad_bodies_get_400_with_the_json_error_and_start_nothing", func(t *testing.T) {
		before := len(listRuns(t, s, ""))
		for _, tc := range []struct {
			name, body, mention string
		}{
			{"unknown_field", `{"target":"util:build","argv":["rm"]}`, "argv"},
			{"undeclared_target", `{"target":"util:deploy"}`, "util:deploy"},
			{"unknown_project", `{"target":"nope:build"}`, "nope:build"},
			{"missing_target", `{}`, "target"},
			{"malformed_json", `{"target" "util:build"}`, "not valid JSON"},
			{"truncated_json", `{"target":`, ""},
			{"not_an_object", `["util:build"]`, ""},
			{"wrong_type", `{"target":7}`, "target"},
			{"empty_body", ``, "empty"},
			{"blank_body", " \n\t", "empty"},
			{"two_json_values", `{"target":"util:build"}{"target":"util:build"}`, "more than one"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				msg := wantAPIError(t, postRun(t, s, s.AdminToken, tc.body), http.StatusBadRequest, "invalid_argument")
				if tc.mention != "" && !strings.Contains(msg, tc.mention) {
					t.Errorf("message %q does not mention %q", msg, tc.mention)
				}
			})
		}
		if after := len(listRuns(t, s, "")); after != before {
			t.Errorf("the refused requests left %d new runs", after-before)
		}
	})

	t.Run("a_truncated_body_is_reported_as_invalid_json", func(t *testing.T) {
		msg := wantAPIError(t, postRun(t, s, s.AdminToken, `{"target":`), http.StatusBadRequest, "invalid_argument")
		if !strings.Contains(msg, "JSON") {
			t.Fatalf("a truncated body gets the bare message %q: decodeStrict (handlers/run.go) maps only *json.SyntaxError to \"the body is not valid JSON\"; json.Decoder reports a body cut short as io.ErrUnexpectedEOF, which falls through to the default case", msg)
		}
	})

	t.Run("a_console_read_token_gets_403", func(t *testing.T) {
		before := len(listRuns(t, s, ""))
		wantAPIError(t, postRun(t, s, reader, `{"target":"util:build"}`), http.StatusForbidden, "permission_denied")
		if after := len(listRuns(t, s, "")); after != before {
			t.Errorf("the refused request started %d runs", after-before)
		}
		// The same token reads the runs.
		if _, err := svcViewer(s, reader).ListRuns(rpcCtx(t), &viewerv1alpha1.ListRunsRequest{}); err != nil {
			t.Errorf("ListRuns with console=read: %v", err)
		}
	})

	t.Run("get_on_diff_run_gets_405", func(t *testing.T) {
		r := get(t, s.URL+"/api/v1/diff/run", s.AdminToken)
		wantAPIError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
		if allow := r.Header.Get("Allow"); !strings.Contains(allow, http.MethodPost) {
			t.Errorf("Allow = %q, want it to name POST", allow)
		}
	})

	t.Run("get_run_of_an_unknown_or_malformed_id", func(t *testing.T) {
		_, err := viewer.GetRun(rpcCtx(t), &viewerv1alpha1.GetRunRequest{Id: "r20000101T000000.000000000Z-00000000"})
		wantConnectCode(t, err, connect.CodeNotFound)
		_, err = viewer.GetRun(rpcCtx(t), &viewerv1alpha1.GetRunRequest{Id: "../server"})
		wantConnectCode(t, err, connect.CodeInvalidArgument)
	})

	t.Run("metrics_count_requests_runs_and_jobs", func(t *testing.T) {
		res, err := svcJobs(s, s.AdminToken).RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/rotate-logs"})
		if err != nil {
			t.Fatalf("RunJob: %v", err)
		}
		if !res.GetStarted() {
			t.Fatal("RunJob(jobs/rotate-logs) did not start; nothing else runs it")
		}
		waitJobIdle(t, s, "jobs/rotate-logs")
		var c map[string]int64
		eventually(t, "jobs_run counts the finished job", func() bool {
			c = metricCounters(t, s)
			return c["jobs_run"] >= 1
		})
		for name, min := range map[string]int64{
			"requests_total": 10, "requests_2xx": 5, "requests_4xx": 12,
			"runs_started": 4, "runs_succeeded": 2, "runs_cached": 1, "runs_failed": 2,
			"cache_hits": 1, "cache_misses": 2,
			"jobs_started": 1, "jobs_run": 1,
		} {
			if c[name] < min {
				t.Errorf("counter %s = %d, want at least %d (counters: %v)", name, c[name], min, c)
			}
		}
		if c["requests_total"] < c["requests_2xx"]+c["requests_4xx"] {
			t.Errorf("requests_total %d < requests_2xx %d + requests_4xx %d", c["requests_total"], c["requests_2xx"], c["requests_4xx"])
		}
	})
}

// ---- core run ------------------------------------------------------------

// TestCoreRun runs targets with the CLI, without a server.
func TestCoreRun(t *testing.T) {
	t.Parallel()
	goEnv := hostGoEnv(t)

	t.Run("run_succeeds_then_reports_cached", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		res := mustCore(t, ws, goEnv, "run", "util:build")
		for _, want := range []string{"▶ util:build", "✔ util:build (", "1 target: 1 succeeded"} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q\n%s", want, res)
			}
		}
		again := mustCore(t, ws, goEnv, "run", "util:build")
		for _, want := range []string{"⚡ util:build (cached)", "1 target: 1 cached"} {
			if !strings.Contains(again.Stderr, want) {
				t.Errorf("second run: stderr lacks %q\n%s", want, again)
			}
		}
		if strings.Contains(again.Stderr, "▶ util:build") {
			t.Errorf("second run started util:build again\n%s", again)
		}
	})

	t.Run("run_streams_output_with_the_target_prefix", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		res := mustCore(t, ws, goEnv, "run", "schemas:build")
		if !strings.Contains(res.Stdout, "[schemas:build] checked 3 schemas") {
			t.Errorf("stdout lacks the prefixed output of check.py\n%s", res)
		}
	})

	t.Run("run_uses_core_concurrency_for_its_pool", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		res := mustCore(t, ws, append(goEnv, "CORE_CONCURRENCY=3"), "run", "schemas:build", "docs:links")
		if !strings.Contains(res.Stderr, "(pool of 3: CORE_CONCURRENCY=3)") {
			t.Errorf("stderr does not report a pool of 3 from CORE_CONCURRENCY\n%s", res)
		}
		if !strings.Contains(res.Stderr, "2 targets: 2 succeeded") {
			t.Errorf("stderr lacks the summary\n%s", res)
		}
	})

	t.Run("run_of_an_unknown_target_fails_naming_it", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		res := runCore(t, ws, goEnv, "run", "nope:build")
		if res.Code == 0 {
			t.Fatalf("want a non-zero exit\n%s", res)
		}
		if !strings.Contains(res.Stderr, "nope:build") {
			t.Errorf("stderr does not name nope:build\n%s", res)
		}
		if strings.Contains(res.Stderr, "▶") {
			t.Errorf("something ran\n%s", res)
		}
	})

	t.Run("a_failing_target_fails_its_dependents_without_running_them", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		addProject(t, ws, "broken", `    targets:
      fail:
        run: [sh, -c, "echo boom; exit 3"]
      after:
        run: [sh, -c, "echo after-ran"]
        deps: [fail]
      last:
        run: [sh, -c, "echo last-ran"]
        deps: [after]
`)
		res := runCore(t, ws, goEnv, "run", "broken:last")
		if res.Code != 1 {
			t.Errorf("exit %d, want 1\n%s", res.Code, res)
		}
		for _, want := range []string{
			"▶ broken:fail", "✘ broken:fail (exit 3)",
			"✘ broken:after (dependency broken:fail failed)",
			"✘ broken:last (dependency broken:after failed)",
			"3 targets: 3 failed",
		} {
			if !strings.Contains(res.Stderr, want) {
				t.Errorf("stderr lacks %q\n%s", want, res)
			}
		}
		if !strings.Contains(res.Stdout, "[broken:fail] boom") {
			t.Errorf("stdout lacks the failing target's output\n%s", res)
		}
		if strings.Contains(res.Stdout, "after-ran") || strings.Contains(res.Stdout, "last-ran") || strings.Contains(res.Stderr, "▶ broken:after") {
			t.Errorf("a dependent of the failed target ran\n%s", res)
		}
		// A failure is not cached: the next run runs it again.
		again := runCore(t, ws, goEnv, "run", "broken:fail")
		if again.Code != 1 || !strings.Contains(again.Stderr, "▶ broken:fail") {
			t.Errorf("the failed target was not run again\n%s", again)
		}
	})
}

// TestInterruptedRunJournal kills `core run` in the middle of a target and
// checks that the next server records the run as interrupted.
func TestInterruptedRunJournal(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	// The target writes its pid (its process group) first, so the test can
	// end the orphan once its parent is gone.
	addProject(t, ws, "sleeper", sleeperProject)
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Close() }()
	errf, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = errf.Close() }()

	cmd := exec.Command(coreBin, "--workspace", ws, "run", "sleeper:nap")
	cmd.Env = isolatedEnv(t)
	cmd.Dir = t.TempDir()
	cmd.Stdout, cmd.Stderr = out, errf // files: Wait does not wait for the orphan
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(ws, "sleeper", "nap.pid")
	napPID := 0
	t.Cleanup(func() {
		if napPID > 0 {
			_ = syscall.Kill(-napPID, syscall.SIGKILL)
		}
	})
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	eventually(t, "core run starts sleeper:nap", func() bool {
		data, _ := os.ReadFile(errf.Name())
		pid, _ := os.ReadFile(pidFile)
		if n, err := strconv.Atoi(strings.TrimSpace(string(pid))); err == nil {
			napPID = n
		}
		return strings.Contains(string(data), "▶ sleeper:nap") && napPID > 0
	})

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // reaped: the pid names no live process any more
	killed = true
	_ = syscall.Kill(-napPID, syscall.SIGKILL)

	s := startServer(t, ws)
	runs := listRuns(t, s, "sleeper:nap")
	if len(runs) != 1 {
		t.Fatalf("ListRuns(sleeper:nap) = %d runs, want 1", len(runs))
	}
	r := runs[0]
	if r.GetStatus() != "interrupted" {
		t.Errorf("ListRuns: status %q, want interrupted", r.GetStatus())
	}
	if r.GetTrigger() != "cli" {
		t.Errorf("trigger = %q, want cli", r.GetTrigger())
	}
	got := getRun(t, s, r.GetId())
	if got.GetRun().GetStatus() != "interrupted" {
		t.Errorf("GetRun: status %q, want interrupted", got.GetRun().GetStatus())
	}
	if got.GetRun().GetExitCode() == 0 {
		t.Error("an interrupted run reports exit code 0")
	}
	if got.GetRun().GetEndTime() == nil {
		t.Error("an interrupted run has no end time")
	}
	if len(got.GetArgv()) != 3 || got.GetArgv()[0] != "sh" {
		t.Errorf("argv = %q, want the declared sh -c ...", got.GetArgv())
	}
	waitActivity(t, s, "about the interrupted run", func(a *activityv1alpha1.Activity) bool {
		return a.GetKind() == "run" && strings.Contains(a.GetMessage(), "interrupted")
	})

	// Only once: a second server does not find it again.
	if code := s.Stop(); code != 0 {
		t.Fatalf("server exit %d\n%s", code, s.logs())
	}
	s2 := startServer(t, ws)
	if runs := listRuns(t, s2, "sleeper:nap"); len(runs) != 1 || runs[0].GetStatus() != "interrupted" {
		t.Errorf("after a second start: %d runs, want the one interrupted run", len(runs))
	}
	n := 0
	for _, a := range activityTrail(t, s2) {
		if strings.Contains(a.GetMessage(), "interrupted when core last stopped") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the trail reports interrupted runs %d times after two starts, want once", n)
	}
}

// sleeperProject is a project whose one target, nap, writes its pid (the
// leader of its process group) to nap.pid and then sleeps for two minutes.
const sleeperProject = `    targets:
      nap:
        run: [sh, -c, "echo $$ > nap.pid; echo napping; exec sleep 120"]
`

// pidGone reports whether pid names no process, or a zombie.
func pidGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(data, ')')
	return i >= 0 && i+2 < len(data) && data[i+2] == 'Z'
}

// TestServerStopEndsItsRuns stops a server gracefully while a run it
// started through diff/run is in the middle of its command.
func TestServerStopEndsItsRuns(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	addProject(t, ws, "sleeper", sleeperProject)
	pidFile := filepath.Join(ws, "sleeper", "nap.pid")
	napPID := 0
	t.Cleanup(func() {
		if napPID > 0 {
			_ = syscall.Kill(-napPID, syscall.SIGKILL)
		}
	})
	s := startServer(t, ws)
	id, _, _ := startedRun(t, postRun(t, s, s.AdminToken, `{"target":"sleeper:nap"}`))
	eventually(t, "sleeper:nap runs", func() bool {
		if data, err := os.ReadFile(pidFile); err == nil {
			napPID, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		return napPID > 0 && getRun(t, s, id).GetRun().GetStatus() == "running"
	})

	t.Run("status_and_plan_show_the_run_in_flight", func(t *testing.T) {
		pool := statusOf(t, s, s.AdminToken).GetPool()
		if pool.GetRunning() != 1 || pool.GetQueued() != 0 {
			t.Errorf("pool running %d queued %d, want 1 and 0", pool.GetRunning(), pool.GetQueued())
		}
		if st := planStates(t, s, s.AdminToken)["target:sleeper:nap"]; st != "running" {
			t.Errorf("plan state of target:sleeper:nap = %q, want running", st)
		}
	})

	if code := s.Stop(); code != 0 {
		t.Fatalf("server exit %d after SIGTERM, want 0\n%s", code, s.logs())
	}
	var problems []string
	deadline := time.Now().Add(10 * time.Second) // > the runner's SIGTERM-to-SIGKILL grace
	for !pidGone(napPID) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !pidGone(napPID) {
		problems = append(problems, "the target's process (pid "+strconv.Itoa(napPID)+") outlived the server that started it")
		_ = syscall.Kill(-napPID, syscall.SIGKILL)
	}
	journal, err := os.ReadFile(filepath.Join(ws, ".core", "runs", id+".json"))
	if err != nil {
		t.Fatalf("the run's journal: %v", err)
	}
	var j struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(journal, &j); err != nil {
		t.Fatalf("the run's journal does not decode: %v", err)
	}
	if j.Status != "interrupted" {
		problems = append(problems, "the journal of the stopped server's run says "+strconv.Quote(j.Status)+" after the server exited")
	}

	// Whatever happened, the next server shows the run as interrupted.
	s2 := startServer(t, ws)
	if st := getRun(t, s2, id).GetRun().GetStatus(); st != "interrupted" {
		t.Errorf("after a restart GetRun says %q, want interrupted", st)
	}
	if len(problems) > 0 {
		t.Fatalf("a graceful stop (SIGTERM, exit 0) does not end the runs the server started: %s. server.Run cancels "+
			"the runs' context only in a deferred cancel() as it returns and waits for nothing, so the process exits before "+
			"the runner's exec.Cmd cancel hook signals the target's process group (the orphan survives in about half the "+
			"attempts) and before the runner writes the interrupted journal; only the next start's RecoverInterrupted repairs "+
			"the journal", strings.Join(problems, "; "))
	}
}
