package e2e

// The job-control service (core.job.v1alpha1.JobService) with the generated
// client, `core server job` and `core ls jobs`, and the two jobs that read
// git: check-drift and check-review.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"

	activityv1alpha1 "github.com/corehq/core/proto/gen/core/activity/v1alpha1"
	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
)

// serverJobs are the six registered maintenance jobs, sorted.
var serverJobs = []string{"check-drift", "check-review", "clear-cache", "rotate-activities", "rotate-logs", "sync-graph"}

// TestJobService drives RunJob and ListJobs with the generated client.
func TestJobService(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	_, reader := createToken(t, ws, "--grant", "console=read")
	s := startServer(t, ws)
	jobs := svcJobs(s, s.AdminToken)
	// started counts the RunJob answers with started=true: each must be one
	// run that ends (jobs_run), nothing else submits a job in this test.
	started := 0

	t.Run("list_jobs_has_exactly_the_six_server_jobs", func(t *testing.T) {
		res, err := svcJobs(s, reader).ListJobs(rpcCtx(t), &jobv1alpha1.ListJobsRequest{})
		if err != nil {
			t.Fatalf("ListJobs with console=read: %v", err)
		}
		var names []string
		for _, j := range res.GetJobs() {
			names = append(names, j.GetName())
			if j.GetHolder() != "server" {
				t.Errorf("%s: holder %q, want server", j.GetName(), j.GetHolder())
			}
			if st := j.GetState(); st != "idle" && st != "running" {
				t.Errorf("%s: state %q, want idle or running", j.GetName(), st)
			}
			if j.GetTargetSize() < 0 {
				t.Errorf("%s: target size %d < 0", j.GetName(), j.GetTargetSize())
			}
			if j.GetTargetUnit() == "" || j.GetDescription() == "" {
				t.Errorf("%s: unit %q description %q, want both", j.GetName(), j.GetTargetUnit(), j.GetDescription())
			}
			if j.GetLastRun() != nil {
				t.Errorf("%s has a last run on a fresh workspace: %v", j.GetName(), j.GetLastRun())
			}
		}
		var want []string
		for _, n := range serverJobs {
			want = append(want, "jobs/"+n)
		}
		sorted := slices.Clone(names)
		slices.Sort(sorted)
		if !slices.Equal(sorted, want) {
			t.Fatalf("ListJobs names = %q, want exactly %q", names, want)
		}
		byName := map[string]*jobv1alpha1.Job{}
		for _, j := range res.GetJobs() {
			byName[j.GetName()] = j
		}
		if n := byName["jobs/sync-graph"].GetTargetSize(); n <= 0 {
			t.Errorf("sync-graph target size = %d, want the graph's node count (> 0)", n)
		}
		if n := byName["jobs/check-drift"].GetTargetSize(); n != 2 {
			t.Errorf("check-drift target size = %d, want 2: the demo declares util:fmt-check and api:fmt-check with drift: true", n)
		}
	})

	t.Run("run_job_returns_at_once_with_the_snapshot", func(t *testing.T) {
		res, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/sync-graph"})
		if err != nil {
			t.Fatalf("RunJob(jobs/sync-graph): %v", err)
		}
		if !res.GetStarted() {
			t.Fatal("RunJob(jobs/sync-graph): started = false on an idle job")
		}
		started++
		j := res.GetJob()
		if j.GetName() != "jobs/sync-graph" || j.GetHolder() != "server" {
			t.Errorf("snapshot name %q holder %q, want jobs/sync-graph and server", j.GetName(), j.GetHolder())
		}
		if j.GetState() != "running" {
			t.Errorf("snapshot state %q, want running (it has just been started)", j.GetState())
		}
		if j.GetTargetSize() <= 0 {
			t.Errorf("snapshot target size %d, want the node count", j.GetTargetSize())
		}
		done := waitJobIdle(t, s, "jobs/sync-graph")
		r := done.GetLastRun()
		if r.GetResult() != "succeeded" || r.GetTrigger() != "request" {
			t.Errorf("last run: result %q trigger %q, want succeeded and request (%s)", r.GetResult(), r.GetTrigger(), r.GetMessage())
		}
		if !strings.Contains(r.GetMessage(), "nodes") {
			t.Errorf("last run message %q does not report the graph", r.GetMessage())
		}
		if r.GetStartTime() == nil || r.GetEndTime() == nil || r.GetEndTime().AsTime().Before(r.GetStartTime().AsTime()) {
			t.Errorf("last run times: start %v end %v", r.GetStartTime(), r.GetEndTime())
		}
		waitActivity(t, s, "of the sync-graph run", func(a *activityv1alpha1.Activity) bool {
			return a.GetKind() == "job" && strings.Contains(a.GetMessage(), "sync-graph succeeded")
		})
	})

	t.Run("run_job_of_an_unknown_job_is_not_found", func(t *testing.T) {
		_, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/nope"})
		wantConnectCode(t, err, connect.CodeNotFound)
		if !strings.Contains(err.Error(), "jobs/sync-graph") {
			t.Errorf("the error %q does not list the registered jobs", err)
		}
	})

	t.Run("run_job_of_a_bare_name_is_invalid_argument", func(t *testing.T) {
		// Without the prefix: not a resource name.
		for _, name := range []string{"", "nope", "job/sync-graph", "/jobs/sync-graph"} {
			_, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: name})
			if code := connect.CodeOf(err); code != connect.CodeInvalidArgument {
				t.Errorf("RunJob(%q): code %v, want invalid_argument", name, code)
			}
		}
		// With it but naming nothing registered: refused either way.
		for _, name := range []string{"jobs/", "jobs/Sync-Graph", "jobs/sync-graph/x", "jobs/../sync-graph"} {
			_, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: name})
			if code := connect.CodeOf(err); code != connect.CodeInvalidArgument && code != connect.CodeNotFound {
				t.Errorf("RunJob(%q): code %v, want invalid_argument or not_found", name, code)
			}
		}
		_, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "sync-graph"})
		wantConnectCode(t, err, connect.CodeInvalidArgument)
		if !strings.Contains(err.Error(), "jobs/") {
			t.Errorf("the error %q does not say how to write the name", err)
		}
	})

	t.Run("run_job_and_list_jobs_without_a_token_are_unauthenticated", func(t *testing.T) {
		_, err := svcJobs(s, "").RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/clear-cache"})
		wantConnectCode(t, err, connect.CodeUnauthenticated)
		_, err = svcJobs(s, "").ListJobs(rpcCtx(t), &jobv1alpha1.ListJobsRequest{})
		wantConnectCode(t, err, connect.CodeUnauthenticated)
	})

	t.Run("run_job_with_a_console_read_token_is_permission_denied", func(t *testing.T) {
		before := jobsByName(t, s)["jobs/clear-cache"]
		_, err := svcJobs(s, reader).RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/clear-cache"})
		wantConnectCode(t, err, connect.CodePermissionDenied)
		after := jobsByName(t, s)["jobs/clear-cache"]
		if after.GetState() != "idle" || (before.GetLastRun() == nil) != (after.GetLastRun() == nil) {
			t.Errorf("the refused RunJob ran the job: %v", after)
		}
	})

	t.Run("concurrent_run_jobs_never_run_the_same_job_twice_at_once", func(t *testing.T) {
		const n = 12
		var (
			wg      sync.WaitGroup
			gate    = make(chan struct{})
			mu      sync.Mutex
			answers []*jobv1alpha1.RunJobResponse
			errs    []error
		)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				res, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/sync-graph"})
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
					return
				}
				answers = append(answers, res)
			}()
		}
		close(gate)
		wg.Wait()
		for _, err := range errs {
			t.Errorf("concurrent RunJob: %v", err)
		}
		// A run starts only on an idle job, and a job turns idle only after
		// its run recorded itself as the last run: every started answer
		// must see a different last run. Two with the same one would be two
		// runs in flight at once.
		seen := map[string]bool{}
		startedNow := 0
		for _, a := range answers {
			if !a.GetStarted() {
				continue
			}
			startedNow++
			prev := "none"
			if r := a.GetJob().GetLastRun(); r != nil {
				prev = r.GetStartTime().AsTime().String() + "/" + r.GetEndTime().AsTime().String()
			}
			if seen[prev] {
				t.Errorf("two started answers follow the same last run (%s): two runs were in flight at once", prev)
			}
			seen[prev] = true
		}
		if startedNow == 0 {
			t.Fatal("none of the concurrent RunJob calls started the idle job")
		}
		t.Logf("%d of %d concurrent RunJob calls started a run, %d joined one", startedNow, n, n-startedNow)
		started += startedNow
		waitJobIdle(t, s, "jobs/sync-graph")
		// Every started answer is one run that ended, and no other run
		// happened.
		eventually(t, "jobs_run reaches the number of started answers", func() bool {
			return metricCounters(t, s)["jobs_run"] >= int64(started)
		})
		c := metricCounters(t, s)
		if c["jobs_run"] != int64(started) {
			t.Errorf("jobs_run = %d, want %d: one per started answer", c["jobs_run"], started)
		}
		if c["jobs_started"] != int64(started) {
			t.Errorf("jobs_started = %d, want %d", c["jobs_started"], started)
		}
		if c["jobs_coalesced"] != int64(n-startedNow) {
			t.Errorf("jobs_coalesced = %d, want %d", c["jobs_coalesced"], n-startedNow)
		}
		runs := 0
		for _, a := range activityTrail(t, s) {
			if a.GetKind() == "job" && strings.HasPrefix(a.GetMessage(), "jobs/sync-graph ") {
				runs++
			}
		}
		if runs != started {
			t.Errorf("the activity trail holds %d sync-graph runs, want %d", runs, started)
		}
	})

	t.Run("every_job_runs_through_run_job", func(t *testing.T) {
		// check-drift and check-review fail here: the demo copy is not a git
		// repository. They must still end, with a result that says why.
		for _, name := range serverJobs {
			res, err := jobs.RunJob(rpcCtx(t), &jobv1alpha1.RunJobRequest{Name: "jobs/" + name})
			if err != nil {
				t.Errorf("RunJob(jobs/%s): %v", name, err)
				continue
			}
			if res.GetStarted() {
				started++
			}
		}
		for _, name := range serverJobs {
			j := waitJobIdle(t, s, "jobs/"+name)
			r := j.GetLastRun()
			switch name {
			case "check-drift", "check-review":
				if r.GetResult() != "failed" || !strings.Contains(r.GetMessage(), "git") {
					t.Errorf("%s outside git: result %q message %q, want failed naming git", name, r.GetResult(), r.GetMessage())
				}
			default:
				if r.GetResult() != "succeeded" {
					t.Errorf("%s: result %q (%s), want succeeded", name, r.GetResult(), r.GetMessage())
				}
			}
		}
		waitActivity(t, s, "of the failed check-drift", func(a *activityv1alpha1.Activity) bool {
			return a.GetKind() == "error" && strings.HasPrefix(a.GetMessage(), "jobs/check-drift failed")
		})
	})
}

// TestJobCLI covers `core server job` and `core ls jobs`.
func TestJobCLI(t *testing.T) {
	t.Parallel()

	t.Run("without_a_server", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		for _, args := range [][]string{{"ls", "jobs"}, {"server", "job", "sync-graph"}} {
			res := runCore(t, ws, nil, args...)
			if res.Code == 0 {
				t.Errorf("core %s without a server: want a non-zero exit\n%s", strings.Join(args, " "), res)
			}
			if !strings.Contains(res.Stderr, "not running") || !strings.Contains(res.Stderr, "core server start") {
				t.Errorf("core %s without a server: stderr does not say to run `core server start`\n%s", strings.Join(args, " "), res)
			}
		}
	})

	t.Run("with_a_server", func(t *testing.T) {
		t.Parallel()
		ws := copyDemo(t)
		s := startServer(t, ws)

		t.Run("server_job_wait_prints_the_result", func(t *testing.T) {
			res := mustCore(t, ws, nil, "server", "job", "sync-graph", "--wait")
			if !strings.Contains(res.Stdout, "jobs/sync-graph submitted") {
				t.Errorf("stdout lacks the submission\n%s", res)
			}
			if !strings.Contains(res.Stdout, "jobs/sync-graph succeeded: graph version") {
				t.Errorf("stdout lacks the result of the run\n%s", res)
			}
			j := jobsByName(t, s)["jobs/sync-graph"]
			if j.GetLastRun().GetResult() != "succeeded" || j.GetState() != "idle" {
				t.Errorf("after --wait the job is %q with last run %v", j.GetState(), j.GetLastRun())
			}
		})

		t.Run("server_job_takes_the_resource_name_too", func(t *testing.T) {
			res := mustCore(t, ws, nil, "server", "job", "jobs/rotate-logs", "--wait")
			if !strings.Contains(res.Stdout, "jobs/rotate-logs succeeded") {
				t.Errorf("stdout lacks the result\n%s", res)
			}
		})

		t.Run("server_job_wait_exits_1_when_the_job_fails", func(t *testing.T) {
			// Not a git repository: check-drift fails.
			res := runCore(t, ws, nil, "server", "job", "check-drift", "--wait")
			if res.Code != 1 || !strings.Contains(res.Stdout, "jobs/check-drift failed") {
				t.Errorf("want exit 1 and the failure\n%s", res)
			}
		})

		t.Run("server_job_of_an_unknown_job_fails_with_not_found", func(t *testing.T) {
			res := runCore(t, ws, nil, "server", "job", "nope")
			if res.Code == 0 {
				t.Fatalf("want a non-zero exit\n%s", res)
			}
			if !strings.Contains(res.Stderr, "not found") {
				t.Errorf("stderr does not say not found\n%s", res)
			}
		})

		t.Run("ls_jobs_prints_a_table_with_a_holder_column", func(t *testing.T) {
			res := mustCore(t, ws, nil, "ls", "jobs")
			lines := strings.Split(strings.TrimRight(res.Stdout, "\n"), "\n")
			if len(lines) != 1+len(serverJobs) {
				t.Fatalf("want a header and %d rows\n%s", len(serverJobs), res)
			}
			header := strings.Fields(lines[0])
			holder := slices.Index(header, "HOLDER")
			if holder < 0 || header[0] != "NAME" {
				t.Fatalf("header %q has no NAME and HOLDER columns", lines[0])
			}
			var names []string
			for _, l := range lines[1:] {
				f := strings.Fields(l)
				if len(f) <= holder {
					t.Errorf("short row %q", l)
					continue
				}
				names = append(names, f[0])
				if f[holder] != "server" {
					t.Errorf("row %q: holder %q, want server", l, f[holder])
				}
			}
			var want []string
			for _, n := range serverJobs {
				want = append(want, "jobs/"+n)
			}
			slices.Sort(names)
			if !slices.Equal(names, want) {
				t.Errorf("rows name %q, want %q", names, want)
			}
			if !strings.Contains(res.Stdout, "succeeded") || !strings.Contains(res.Stdout, "never") {
				t.Errorf("the table shows no last-run results (sync-graph succeeded, clear-cache never ran)\n%s", res)
			}
		})
	})
}

// wsGitStatus is `git status --porcelain --untracked-files=all` of ws.
func wsGitStatus(t testing.TB, ws string) string {
	t.Helper()
	return wsGit(t, ws, "status", "--porcelain", "--untracked-files=all")
}

// TestCheckDrift commits an unformatted Go file in a project whose gofmt
// target says `drift: true`, and checks that check-drift notices it
// without touching the working tree.
func TestCheckDrift(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	wsGitInit(t, ws)
	s := startServer(t, ws, wsGitEnv...)

	// A clean HEAD first: nothing to notice.
	res := mustCore(t, ws, nil, "server", "job", "check-drift", "--wait")
	if !strings.Contains(res.Stdout, "jobs/check-drift succeeded: 2 drift targets clean at HEAD") {
		t.Errorf("on a clean HEAD: want 2 drift targets clean\n%s", res)
	}

	ugly := filepath.Join(ws, "libs", "util", "ugly.go")
	const uglySrc = "package util\nfunc  Ugly( ) int { return  1 }\n"
	if err := os.WriteFile(ugly, []byte(uglySrc), 0o644); err != nil {
		t.Fatal(err)
	}
	wsGit(t, ws, "add", "libs/util/ugly.go")
	wsGit(t, ws, "commit", "-q", "-m", "unformatted")
	head := wsGit(t, ws, "rev-parse", "HEAD")
	statusBefore := wsGitStatus(t, ws)
	worktreesBefore := wsGit(t, ws, "worktree", "list", "--porcelain")

	res = mustCore(t, ws, nil, "server", "job", "check-drift", "--wait")
	if !strings.Contains(res.Stdout, "jobs/check-drift succeeded: 1 of 2 drift targets stale") {
		t.Errorf("check-drift: want 1 of 2 stale, without failing\n%s", res)
	}
	notice := "drift: util:fmt-check is stale at " + head[:7]
	a := waitActivity(t, s, "with the drift notice", func(a *activityv1alpha1.Activity) bool {
		return strings.HasPrefix(a.GetMessage(), notice)
	})
	if !strings.Contains(a.GetMessage(), "ugly.go") {
		t.Errorf("the notice %q does not name the stale file", a.GetMessage())
	}
	if a.GetKind() != "job" || a.GetSubject() != "util:fmt-check" {
		t.Errorf("notice kind %q subject %q, want job and util:fmt-check", a.GetKind(), a.GetSubject())
	}
	for _, a := range activityTrail(t, s) {
		if strings.HasPrefix(a.GetMessage(), "drift: api:fmt-check") {
			t.Errorf("a notice for api, which is formatted: %q", a.GetMessage())
		}
	}

	// Untouched: the working tree, the index and the file; no worktree
	// left behind.
	if after := wsGitStatus(t, ws); after != statusBefore {
		t.Errorf("git status changed:\nbefore:\n%s\nafter:\n%s", statusBefore, after)
	}
	if data, err := os.ReadFile(ugly); err != nil || string(data) != uglySrc {
		t.Errorf("ugly.go changed (%v): %q", err, data)
	}
	if after := wsGit(t, ws, "worktree", "list", "--porcelain"); after != worktreesBefore {
		t.Errorf("git worktree list changed:\nbefore:\n%s\nafter:\n%s", worktreesBefore, after)
	}
	if got := wsGit(t, ws, "rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved from %s to %s", head, got)
	}
}

// TestCheckReview observes a feature branch, merges it into main and
// checks that check-review notes the merge once.
func TestCheckReview(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	wsGitInit(t, ws)
	wsGit(t, ws, "checkout", "-q", "-b", "feature/x")
	readme := filepath.Join(ws, "libs", "util", "README.md")
	data, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(readme, append(data, "\nMore words.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	wsGit(t, ws, "commit", "-q", "-am", "feature work")
	feature := wsGit(t, ws, "rev-parse", "HEAD")

	// The server observes the branch it starts on.
	s := startServer(t, ws, wsGitEnv...)
	if n := jobsByName(t, s)["jobs/check-review"].GetTargetSize(); n != 1 {
		t.Errorf("check-review target size = %d, want 1: feature/x waits for its merge", n)
	}

	wsGit(t, ws, "checkout", "-q", "main")
	wsGit(t, ws, "merge", "-q", "--no-ff", "-m", "merge feature/x", "feature/x")

	res := mustCore(t, ws, nil, "server", "job", "check-review", "--wait")
	want := "feature/x merged into main (" + feature[:7] + ")"
	if !strings.Contains(res.Stdout, want) {
		t.Errorf("check-review: stdout lacks %q\n%s", want, res)
	}
	waitActivity(t, s, "with the merge note", func(a *activityv1alpha1.Activity) bool {
		return a.GetKind() == "job" && strings.Contains(a.GetMessage(), "check-review succeeded: "+want)
	})
	if n := jobsByName(t, s)["jobs/check-review"].GetTargetSize(); n != 0 {
		t.Errorf("check-review target size after the merge = %d, want 0", n)
	}

	// Once: a second run has nothing new to say.
	res = mustCore(t, ws, nil, "server", "job", "check-review", "--wait")
	if strings.Contains(res.Stdout, "merged into") || !strings.Contains(res.Stdout, "no review merged") {
		t.Errorf("the second check-review reports the merge again\n%s", res)
	}
}
