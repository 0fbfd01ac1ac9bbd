package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/corehq/core/internal/testbed"
	"go.yaml.in/yaml/v3"
)

// workflow is the part of a GitHub Actions workflow the test plays.
type workflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Needs    any               `yaml:"needs"`
		Outputs  map[string]string `yaml:"outputs"`
		Strategy struct {
			Matrix string `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
			If   string            `yaml:"if"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// readmeWorkflow is the workflow in the README's CI section, which must be
// docs/ci/github-actions.yml as it is.
func readmeWorkflow(t *testing.T) []byte {
	t.Helper()
	file, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "ci", "github-actions.yml"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, ci, ok := strings.Cut(string(readme), "\n## CI\n")
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(ci)
	if !ok || block == nil {
		t.Fatal("the README has no CI section with a yaml block")
	}
	if block[1] != string(file) {
		t.Fatal("the README's workflow is not docs/ci/github-actions.yml: copy the file into its CI section")
	}
	return file
}

// playWorkflow plays the workflow's jobs on this machine, as GitHub
// Actions would for a push to main: each job in a fresh clone of ws, its
// run: steps in bash with the workflow's environment, the artifacts and
// the cache in directories. Only `go install` is skipped: core is the
// binary under test. It answers the report step's result and the step
// summary.
func playWorkflow(t *testing.T, wf workflow, ws, runID string, env map[string]string, cache string) (cliResult, string) {
	t.Helper()
	artifacts := t.TempDir()
	outputs := map[string]map[string]string{} // job → its outputs
	var reportRes cliResult
	summaryPath := filepath.Join(t.TempDir(), "summary.md")

	job := func(name string, matrix map[string]string, index int) {
		t.Helper()
		j := wf.Jobs[name]
		dir := cloneTree(t, ws)
		stepOut := map[string]map[string]string{}
		expr := regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)
		subst := func(s string) string {
			return expr.ReplaceAllStringFunc(s, func(m string) string {
				e := expr.FindStringSubmatch(m)[1]
				switch {
				case e == "matrix.shard":
					return matrix["shard"]
				case e == "strategy.job-index":
					return fmt.Sprint(index)
				case e == "github.run_id":
					return runID
				case strings.HasPrefix(e, "steps."):
					parts := strings.Split(e, ".") // steps.ID.outputs.NAME
					return stepOut[parts[1]][parts[3]]
				}
				t.Fatalf("job %s: the test does not know ${{ %s }}", name, e)
				return ""
			})
		}
		environ := testbed.IsolatedEnv(t.TempDir(), "PATH="+filepath.Dir(coreBin)+":"+os.Getenv("PATH"),
			"GITHUB_STEP_SUMMARY="+summaryPath, "CORE_CONCURRENCY=2")
		for k, v := range wf.Env {
			if ov, ok := env[k]; ok {
				v = ov
			}
			environ = append(environ, k+"="+v)
		}
		failed := false // a failed step skips the rest but those if: always()
		for _, st := range j.Steps {
			if failed && !strings.Contains(st.If, "always()") {
				continue
			}
			with := map[string]string{}
			for k, v := range st.With {
				with[k] = subst(v)
			}
			switch {
			case strings.HasPrefix(st.Uses, "actions/checkout@"), strings.HasPrefix(st.Uses, "actions/setup-go@"):
			case strings.HasPrefix(st.Uses, "actions/cache/restore@"):
				copyIfThere(t, cache, filepath.Join(dir, with["path"]))
			case strings.HasPrefix(st.Uses, "actions/cache/save@"):
				_ = os.RemoveAll(cache)
				copyIfThere(t, filepath.Join(dir, with["path"]), cache)
			case strings.HasPrefix(st.Uses, "actions/upload-artifact@"):
				copyIfThere(t, filepath.Join(dir, with["path"]), filepath.Join(artifacts, with["name"]))
			case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
				if with["pattern"] != "" {
					matches, _ := filepath.Glob(filepath.Join(artifacts, with["pattern"]))
					for _, m := range matches {
						copyIfThere(t, m, filepath.Join(dir, with["path"], filepath.Base(m)))
					}
				} else {
					copyIfThere(t, filepath.Join(artifacts, with["name"]), filepath.Join(dir, with["path"]))
				}
			case st.Uses != "":
				t.Fatalf("job %s: the test does not play %s", name, st.Uses)
			case strings.HasPrefix(st.Run, "go install "):
			default:
				out := filepath.Join(t.TempDir(), "output")
				cmd := exec.Command("bash", "-e", "-c", subst(st.Run))
				cmd.Dir = dir
				cmd.Env = append(environ, "GITHUB_OUTPUT="+out)
				b, err := cmd.CombinedOutput()
				res := cliResult{Stdout: string(b)}
				if exit, ok := err.(*exec.ExitError); ok {
					res.Code = exit.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				switch {
				case strings.Contains(st.Run, "core ci report"):
					reportRes = res
				case res.Code != 0 && name == "shard":
					failed = true // a failed target: the report says so
				case res.Code != 0:
					t.Fatalf("job %s: %s\n%s", name, st.Run, res)
				}
				if st.ID != "" {
					stepOut[st.ID] = map[string]string{}
					data, _ := os.ReadFile(out)
					for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
						if k, v, ok := strings.Cut(line, "="); ok {
							stepOut[st.ID][k] = v
						}
					}
				}
			}
		}
		outputs[name] = map[string]string{}
		for k, v := range j.Outputs {
			outputs[name][k] = subst(v)
		}
	}

	job("plan", nil, 0)
	if m := wf.Jobs["shard"].Strategy.Matrix; m != "${{ fromJSON(needs.plan.outputs.matrix) }}" {
		t.Fatalf("the shard job's matrix is %q, not the plan job's output", m)
	}
	var matrix struct {
		Include []map[string]string `json:"include"`
	}
	if err := json.Unmarshal([]byte(outputs["plan"]["matrix"]), &matrix); err != nil || len(matrix.Include) == 0 {
		t.Fatalf("the plan job's matrix output %q: %v", outputs["plan"]["matrix"], err)
	}
	for i, m := range matrix.Include {
		job("shard", m, i)
	}
	job("report", nil, 0)
	summary, _ := os.ReadFile(summaryPath)
	return reportRes, string(summary)
}

// copyIfThere copies src to dst when src exists (an artifact or a cache
// that is not there is skipped, as the workflow allows).
func copyIfThere(t *testing.T, src, dst string) {
	t.Helper()
	if _, err := os.Stat(src); err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v\n%s", src, dst, err, out)
	}
}

// TestTheREADMEsWorkflowRunsItsCoreCommands parses the README's GitHub
// Actions workflow (docs/ci/github-actions.yml) and plays it twice on the
// generated workspace of the shard test, with a real nginx cache: the
// plan job's matrix drives the shard jobs, the report job passes and
// writes the step summary, and the second run weighs the targets by the
// history the first one saved.
func TestTheREADMEsWorkflowRunsItsCoreCommands(t *testing.T) {
	var wf workflow
	if err := yaml.Unmarshal(readmeWorkflow(t), &wf); err != nil {
		t.Fatalf("the workflow does not parse: %v", err)
	}
	for _, name := range []string{"plan", "shard", "report"} {
		if _, ok := wf.Jobs[name]; !ok {
			t.Fatalf("the workflow has no %s job", name)
		}
	}
	ng := testbed.StartNginx(t, "")
	ws := shardWorkspace(t)
	env := map[string]string{"BASE": "main", "CORE_CACHE_REMOTE_URL": ng.URL}
	cache := filepath.Join(t.TempDir(), "actions-cache")

	res, summary := playWorkflow(t, wf, ws, "1001", env, cache)
	if res.Code != 0 || !strings.Contains(summary, "core: passed: 48 targets on 4 shards") {
		t.Fatalf("the first run's report:\n%s\nsummary:\n%s", res, summary)
	}
	if _, err := os.Stat(filepath.Join(cache, "1001")); err != nil {
		t.Fatalf("the report job saved no history: %v", err)
	}

	plan := mustCore(t, ws, nil, "ci", "plan", "--shards", "4", "--affected", "test", "--base", "main", "--history", cache)
	if !strings.Contains(plan.Stdout, "weighed: 48 by history") {
		t.Errorf("the saved history does not weigh the plan:\n%s", plan)
	}
	writeTree(t, ws, map[string]string{"svc2b/FAIL": "x\n"})
	res, summary = playWorkflow(t, wf, ws, "1002", env, cache)
	if res.Code != 1 || !strings.Contains(summary, "svc2b:test (failed, exit 3") {
		t.Fatalf("the second run, with svc2b:test failing:\n%s\nsummary:\n%s", res, summary)
	}
}
