package e2e

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/testbed"
	jobv1alpha1 "github.com/corehq/core/proto/gen/core/job/v1alpha1"
	"github.com/corehq/core/proto/gen/core/job/v1alpha1/jobv1alpha1connect"
)

// TestABuildWithoutMCPServesOnlyWhatTheCLINeeds builds core with -tags
// nomcp and checks the spec's rule: no /mcp, no console and no /api/v1/
// routes, while the typed services the CLI uses still answer.
func TestABuildWithoutMCPServesOnlyWhatTheCLINeeds(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "core-nomcp")
	build := exec.Command("go", "build", "-tags", "nomcp", "-o", bin, "./cmd/core")
	build.Dir = moduleRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags nomcp: %v\n%s", err, out)
	}

	routes, err := exec.Command(bin, "routes").Output()
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join(moduleRoot, "testdata/golden/routes-nomcp.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(routes) != string(golden) {
		t.Errorf("core routes (nomcp) differs from testdata/golden/routes-nomcp.txt:\n--- got\n%s--- want\n%s", routes, golden)
	}

	ws := copyDemo(t)
	cmd := exec.Command(bin, "--workspace", ws, "server", "start", "--address", "127.0.0.1:0")
	cmd.Env = isolatedEnv(t)
	out := &testbed.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	var base string
	for deadline := time.Now().Add(readyTimeout); base == ""; {
		if m := readyRE.FindStringSubmatch(out.String()); m != nil {
			base = "http://127.0.0.1:" + m[2][strings.LastIndex(m[2], ":")+1:]
		} else if time.Now().After(deadline) {
			t.Fatalf("no ready line:\n%s", out)
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	st := readState(t, ws)
	for _, path := range []string{"/mcp", "/api/v1/graph", "/api/v1/attention", "/console/graph/"} {
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			r := do(t, newRequest(t, m, base+path, st.AdminToken, nil))
			if r.Status != http.StatusNotFound {
				t.Errorf("%s %s in a nomcp build: %s", m, path, r)
			}
			if !strings.Contains(string(r.Body), "built with -tags nomcp") {
				t.Errorf("%s %s in a nomcp build: the 404 does not name the build: %s", m, path, r)
			}
		}
	}
	jobs := jobv1alpha1connect.NewJobServiceClient(&http.Client{Transport: auth.Transport{Token: st.AdminToken}}, base)
	list, err := jobs.ListJobs(context.Background(), &jobv1alpha1.ListJobsRequest{})
	if err != nil || len(list.GetJobs()) == 0 {
		t.Fatalf("ListJobs in a nomcp build: %v", err)
	}
	if _, err := jobs.HandJob(context.Background(), &jobv1alpha1.HandJobRequest{Text: "x"}); connect.CodeOf(err) != connect.CodeUnimplemented {
		t.Errorf("HandJob in a nomcp build: %v", err)
	}

	// Every message about the missing console names the build, not a
	// setting or the address.
	const cause = "this build of core has no console: it was built with -tags nomcp"
	if !strings.Contains(out.String(), "console: not mounted ("+cause+")") {
		t.Errorf("the server's ready lines do not name the build:\n%s", out)
	}
	for _, running := range []bool{true, false} {
		if !running {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}
		doctor := exec.Command(bin, "--workspace", ws, "doctor")
		doctor.Env = isolatedEnv(t)
		text, _ := doctor.Output()
		if lines := consoleLines(string(text)); len(lines) != 1 || lines[0] != "console: none ("+cause+")" {
			t.Errorf("doctor of a nomcp build (server running: %v): console lines %q\n%s", running, lines, text)
		}
	}
}
