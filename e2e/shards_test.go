package e2e

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/corehq/core/internal/testbed"
)

// shardGroups and shardChanged shape the generated workspace: each group
// is a library and two services that depend on it, each project with a
// build and a test (6 targets); the libraries of the first shardChanged
// groups change, so 48 of the 60 targets are affected, in 8 connected
// groups of equal weight that 4 shards take whole.
const (
	shardGroups  = 10
	shardChanged = 8
)

// shardWorkspace writes the generated workspace, commits it as main and
// changes the first shardChanged libraries.
func shardWorkspace(t *testing.T) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	files := map[string]string{}
	var y strings.Builder
	y.WriteString("projects:\n")
	// A test fails when its project holds a file named FAIL.
	const build = `[sh, -c, "sleep 0.05; echo built $(basename $PWD)"]`
	const test = `[sh, -c, "sleep 0.05; echo testing $(basename $PWD); if test -e FAIL; then echo 'FAIL: the answer is not 42' >&2; exit 3; fi"]`
	for g := range shardGroups {
		lib := fmt.Sprintf("lib%d", g)
		files[lib+"/src.txt"] = "lib\n"
		fmt.Fprintf(&y, "  %s:\n    path: %s\n    targets:\n      build: {run: %s, inputs: [\"**\"]}\n      test: {run: %s, inputs: [\"**\"], deps: [build]}\n", lib, lib, build, test)
		for _, s := range []string{"a", "b"} {
			svc := fmt.Sprintf("svc%d%s", g, s)
			files[svc+"/src.txt"] = "svc\n"
			fmt.Fprintf(&y, "  %s:\n    path: %s\n    deps: [%s]\n    targets:\n      build: {run: %s, inputs: [\"**\"], deps: [\"^build\"]}\n      test: {run: %s, inputs: [\"**\"], deps: [build]}\n", svc, svc, lib, build, test)
		}
	}
	files["targets.yaml"] = y.String()
	files[".gitignore"] = ".core/\n"
	writeTree(t, ws, files)
	gitInit(t, ws)
	for g := range shardChanged {
		writeTree(t, ws, map[string]string{fmt.Sprintf("lib%d/src.txt", g): "lib, changed\n"})
	}
	return ws
}

// cloneTree copies a workspace with its git history, as another CI
// runner's checkout.
func cloneTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "ws")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v\n%s", err, out)
	}
	return dst
}

// ciReport is what core ci report --json says, in part.
type ciReport struct {
	Targets []struct {
		Target, Status, Shard, Output string
	} `json:"targets"`
	Twice  []string `json:"ran_twice"`
	Failed bool     `json:"failed"`
}

func (r ciReport) statuses() map[string]string {
	m := map[string]string{}
	for _, t := range r.Targets {
		m[t.Target] = t.Status
	}
	return m
}

// runShards runs core run --affected test --shard I/n in n clones of ws at
// once, each with its own cache directory and the remote cache, and
// copies each one's runs directory to artifacts/shard-I, as a workflow
// uploads and downloads them.
func runShards(t *testing.T, ws string, n int, remote string, artifacts string) []cliResult {
	t.Helper()
	results := make([]cliResult, n)
	clones := make([]string, n)
	envs := make([][]string, n)
	for i := range n {
		clones[i] = cloneTree(t, ws)
		envs[i] = isolatedEnv(t, "CORE_CACHE_REMOTE_URL="+remote, "CORE_CACHE_REMOTE_MODE=read-write", "CORE_CONCURRENCY=2")
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(coreBin, "--workspace", clones[i], "run", "--affected", "test", "--base", "main", "--shard", fmt.Sprintf("%d/%d", i+1, n), "--color", "never")
			cmd.Env = envs[i]
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			results[i] = cliResult{Stdout: stdout.String(), Stderr: stderr.String()}
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				results[i].Code = exit.ExitCode()
			} else if err != nil {
				results[i].Code = -1
				results[i].Stderr += err.Error()
			}
		}()
	}
	wg.Wait()
	for i := range n {
		dst := filepath.Join(artifacts, fmt.Sprintf("shard-%d", i+1))
		if out, err := exec.Command("cp", "-a", filepath.Join(clones[i], ".core", "runs"), dst).CombinedOutput(); err != nil {
			t.Fatalf("shard %d left no runs directory: %v\n%s\n%s", i+1, err, out, results[i])
		}
	}
	return results
}

// report runs core ci report --json over dir and decodes it.
func report(t *testing.T, ws, dir string, args ...string) (ciReport, cliResult) {
	t.Helper()
	res := runCore(t, ws, nil, append([]string{"ci", "report", dir, "--json"}, args...)...)
	var r ciReport
	if err := json.Unmarshal([]byte(res.Stdout), &r); err != nil {
		t.Fatalf("core ci report --json: %v\n%s", err, res)
	}
	return r, res
}

// singleMachine runs the same selection on one machine without the remote
// cache, and reports its journals.
func singleMachine(t *testing.T, ws string) ciReport {
	t.Helper()
	c := cloneTree(t, ws)
	runCore(t, c, []string{"CORE_CONCURRENCY=2"}, "run", "--affected", "test", "--base", "main", "--remote", "off", "--color", "never")
	r, _ := report(t, c, filepath.Join(c, ".core", "runs"))
	return r
}

// builtOn is, per target, the shards whose journals say its command ran.
func builtOn(t *testing.T, artifacts string, n int) map[string][]int {
	t.Helper()
	out := map[string][]int{}
	for i := 1; i <= n; i++ {
		paths, _ := filepath.Glob(filepath.Join(artifacts, fmt.Sprintf("shard-%d", i), "*.json"))
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var js []struct {
				Target   string `json:"target"`
				CacheHit bool   `json:"cache_hit"`
				Shard    string `json:"shard"`
			}
			var batch struct {
				Runs json.RawMessage `json:"runs"`
			}
			if json.Unmarshal(data, &batch) == nil && batch.Runs != nil {
				_ = json.Unmarshal(batch.Runs, &js)
			} else {
				js = make([]struct {
					Target   string `json:"target"`
					CacheHit bool   `json:"cache_hit"`
					Shard    string `json:"shard"`
				}, 1)
				_ = json.Unmarshal(data, &js[0])
			}
			for _, j := range js {
				if want := fmt.Sprintf("%d/%d", i, n); j.Shard != want {
					t.Errorf("%s: a journal of shard %s says shard %q", p, want, j.Shard)
				}
				if !j.CacheHit {
					out[j.Target] = append(out[j.Target], i)
				}
			}
		}
	}
	return out
}

// TestFourShardsRunTheAffectedSetOnceAndReportItAsOne is issue 35's CI
// run on one machine: four processes of core run --shard I/4, each in its
// own checkout with its own cache directory and a real nginx remote cache,
// on a generated workspace of 60 shell targets; core ci report over their
// journals.
func TestFourShardsRunTheAffectedSetOnceAndReportItAsOne(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	ws := shardWorkspace(t)

	var dry struct {
		Targets []struct{ Target string } `json:"targets"`
	}
	res := mustCore(t, ws, nil, "run", "--affected", "test", "--base", "main", "--dry-run", "--json")
	if err := json.Unmarshal([]byte(res.Stdout), &dry); err != nil {
		t.Fatal(err)
	}
	var selected []string
	for _, d := range dry.Targets {
		selected = append(selected, d.Target)
	}
	slices.Sort(selected)
	if len(selected) != 6*shardChanged {
		t.Fatalf("the affected run has %d targets, want %d: %v", len(selected), 6*shardChanged, selected)
	}

	var plan struct {
		Digest string `json:"digest"`
		Plan   []struct {
			Shard   string
			Targets []string
			Needs   []struct{ Target string }
		} `json:"plan"`
		GitHub struct {
			Include []struct{ Shard string } `json:"include"`
		} `json:"github"`
	}
	res = mustCore(t, ws, nil, "ci", "plan", "--shards", "4", "--affected", "test", "--base", "main", "--json")
	if err := json.Unmarshal([]byte(res.Stdout), &plan); err != nil {
		t.Fatalf("core ci plan --json: %v\n%s", err, res)
	}
	if len(plan.GitHub.Include) != 4 || plan.GitHub.Include[3].Shard != "4/4" {
		t.Fatalf("the GitHub matrix: %+v", plan.GitHub)
	}
	for _, s := range plan.Plan {
		if len(s.Needs) > 0 {
			t.Fatalf("8 equal groups on 4 shards need no split, but shard %s needs %+v", s.Shard, s.Needs)
		}
	}

	artifacts := t.TempDir()
	shards := runShards(t, ws, 4, ng.URL, artifacts)
	for i, r := range shards {
		if r.Code != 0 {
			t.Fatalf("shard %d/4 failed:\n%s", i+1, r)
		}
		if !strings.Contains(r.Stderr, "of plan "+plan.Digest) {
			t.Errorf("shard %d/4 ran another plan than core ci plan's %s:\n%s", i+1, plan.Digest, r.Stderr)
		}
	}

	t.Run("the union of the shards is exactly the affected run, and no target runs twice", func(t *testing.T) {
		built := builtOn(t, artifacts, 4)
		var union []string
		for target, on := range built {
			union = append(union, target)
			if len(on) > 1 {
				t.Errorf("%s ran on shards %v", target, on)
			}
		}
		slices.Sort(union)
		if !slices.Equal(union, selected) {
			t.Errorf("the shards ran %v\nthe affected run is %v", union, selected)
		}
	})
	single := singleMachine(t, ws)
	t.Run("the report matches a single machine's run", func(t *testing.T) {
		rep, res := report(t, ws, artifacts, "--shards", "4", "--affected", "test", "--base", "main")
		if res.Code != 0 || rep.Failed {
			t.Fatalf("the report of passing shards fails:\n%s", res)
		}
		if got, want := rep.statuses(), single.statuses(); !mapsEqual(got, want) {
			t.Errorf("the shards' report says %v\na single machine's %v", got, want)
		}
		if len(rep.Twice) > 0 {
			t.Errorf("the report says targets ran twice: %v", rep.Twice)
		}
	})
	t.Run("core runs show names the shard", func(t *testing.T) {
		c := filepath.Join(t.TempDir(), "ws")
		if out, err := exec.Command("cp", "-a", ws, c).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		_ = os.MkdirAll(filepath.Join(c, ".core"), 0o755)
		if out, err := exec.Command("cp", "-a", filepath.Join(artifacts, "shard-2"), filepath.Join(c, ".core", "runs")).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if r := mustCore(t, c, nil, "runs", "show", "last"); !strings.Contains(r.Stdout, "shard    2/4 (plan "+plan.Digest) {
			t.Errorf("core runs show of a shard's run:\n%s", r)
		}
	})

	t.Run("a failure in one shard fails the report, with its output", func(t *testing.T) {
		writeTree(t, ws, map[string]string{"svc3a/FAIL": "x\n"})
		failing := t.TempDir()
		shards := runShards(t, ws, 4, ng.URL, failing)
		failed := 0
		for _, r := range shards {
			if r.Code != 0 {
				failed++
			}
		}
		if failed != 1 {
			t.Errorf("%d shards failed, want 1 (the one with svc3a:test)", failed)
		}
		md := filepath.Join(t.TempDir(), "summary.md")
		junit := filepath.Join(t.TempDir(), "junit.xml")
		rep, res := report(t, ws, failing, "--markdown", md, "--junit", junit)
		if res.Code != 1 || !rep.Failed {
			t.Fatalf("the report of a failed shard passes:\n%s", res)
		}
		if st := rep.statuses()["svc3a:test"]; st != "failed" {
			t.Errorf("svc3a:test is %q in the report", st)
		}
		single := singleMachine(t, ws)
		got, want := rep.statuses(), single.statuses()
		for target, st := range want {
			if ok := st == "succeeded" || st == "cached"; ok != (got[target] == "succeeded" || got[target] == "cached") {
				t.Errorf("%s: %s on one machine, %s on the shards", target, st, got[target])
			}
		}
		if len(got) != len(want) {
			t.Errorf("the shards report %d targets, one machine %d", len(got), len(want))
		}
		summary, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(summary), "svc3a:test (failed, exit 3") || !strings.Contains(string(summary), "FAIL: the answer is not 42") {
			t.Errorf("the step summary does not show the failure and its output:\n%s", summary)
		}
		data, err := os.ReadFile(junit)
		if err != nil {
			t.Fatal(err)
		}
		var x struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		}
		if err := xml.Unmarshal(data, &x); err != nil || x.Failures != 1 || x.Tests != len(selected) {
			t.Errorf("JUnit: %v, %+v\n%s", err, x, data)
		}

		// An agent reads the same report over MCP, from the artifacts
		// downloaded into the workspace; a directory out of it is refused.
		if out, err := exec.Command("cp", "-a", failing, filepath.Join(ws, "ci-artifacts")).CombinedOutput(); err != nil {
			t.Fatalf("cp -a: %v\n%s", err, out)
		}
		if err := os.Symlink(t.TempDir(), filepath.Join(ws, "ci-out")); err != nil {
			t.Fatal(err)
		}
		s := startServer(t, ws)
		_, tok := createMCPToken(t, ws)
		cs := connectMCP(t, s, tok, "")
		var page struct {
			Failed  bool `json:"failed"`
			Targets []struct {
				Target, Status, Shard, Output string
			} `json:"targets"`
			Total int `json:"total"`
		}
		out := callTool(t, cs, "read_ci_report", map[string]any{"dirs": []string{"ci-artifacts"}}, false)
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatalf("read_ci_report: %v: %s", err, out)
		}
		if !page.Failed || page.Total != len(rep.Targets) || len(page.Targets) == 0 || page.Targets[0].Target != "svc3a:test" ||
			page.Targets[0].Status != "failed" || page.Targets[0].Shard == "" || !strings.Contains(page.Targets[0].Output, "FAIL: the answer is not 42") {
			t.Errorf("read_ci_report does not lead with the failure, its shard and its output: %s", out)
		}
		for _, dir := range []string{"../", "ci-out", "/tmp"} {
			if out := callTool(t, cs, "read_ci_report", map[string]any{"dirs": []string{dir}}, true); !strings.Contains(out, "dirs:") {
				t.Errorf("read_ci_report of %s: %s", dir, out)
			}
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
