package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/testbed"
	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
)

// TestTwoClonesShareARemoteCache is the story with the real binary
// and a real nginx: clone A builds with read-write, clone B (another
// directory) runs the same targets and every one is a remote hit, with
// byte-identical outputs and the same modes.
func TestTwoClonesShareARemoteCache(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	a, b := copyDemo(t), copyDemo(t)
	remote := func(mode string) []string {
		return append(hostGoEnv(t), "CORE_CACHE_REMOTE_URL="+ng.URL, "CORE_CACHE_REMOTE_MODE="+mode)
	}
	targets := []string{"api:build", "web:build", "ml:build"}

	ra := mustCore(t, a, remote("read-write"), append([]string{"run"}, targets...)...)
	summary := regexp.MustCompile(`cache: 0 local hits, 0 remote hits, (\d+) built; remote http://127\.0\.0\.1:\d+/cache \(read-write\): .* down, .* up, (\d+) results uploaded`)
	m := summary.FindStringSubmatch(ra.Stderr)
	if m == nil || m[1] != m[2] {
		t.Fatalf("clone A's summary:\n%s", ra.Stderr)
	}

	rb := mustCore(t, b, remote("read"), append([]string{"run"}, targets...)...)
	t.Logf("clone A:\n%s\nclone B:\n%s", ra.Stderr, rb.Stderr)
	t.Run("clone B is served every target from the remote", func(t *testing.T) {
		want := regexp.MustCompile(`cache: 0 local hits, ` + m[1] + ` remote hits, 0 built; remote .* \(read\): [0-9.]+ [KM]?i?B down, 0 B up`)
		if !want.MatchString(rb.Stderr) {
			t.Fatalf("clone B's summary:\n%s", rb.Stderr)
		}
		if !strings.Contains(rb.Stderr, "api:build (remote cache)") {
			t.Errorf("no remote-cache progress line:\n%s", rb.Stderr)
		}
	})
	t.Run("the outputs are byte-identical with the same modes", func(t *testing.T) {
		for _, dir := range []string{"services/api/bin", "web/dist", "ml/recommend/__pycache__"} {
			fa, fb := tree(t, filepath.Join(a, dir)), tree(t, filepath.Join(b, dir))
			if len(fa) == 0 {
				t.Fatalf("%s: nothing in clone A", dir)
			}
			for p, v := range fa {
				if w, ok := fb[p]; !ok || !bytes.Equal(v, w) {
					t.Errorf("%s/%s differs in clone B", dir, p)
				}
			}
			if len(fa) != len(fb) {
				t.Errorf("%s: %d entries in A, %d in B", dir, len(fa), len(fb))
			}
		}
	})
	t.Run("a server's runs use the remote, and its status and metrics count it", func(t *testing.T) {
		c := copyDemo(t)
		s := startServer(t, c, remote("read")...)
		id, _, _ := startedRun(t, postRun(t, s, s.AdminToken, `{"target":"api:build"}`))
		if run := waitRunEnds(t, s, id); run.GetRun().GetStatus() != "cached" || run.GetRun().GetFrom() != "remote" {
			t.Fatalf("api:build through the server: %v", run)
		}
		// The books count a run when it ends as a whole, just after its
		// targets' journals say how each ended: ask until they have.
		var cache *statusv1alpha1.CacheSummary
		for deadline := time.Now().Add(pollTimeout); ; time.Sleep(20 * time.Millisecond) {
			st, err := svcStatus(s, s.AdminToken).GetStatus(rpcCtx(t), &statusv1alpha1.GetStatusRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if cache = st.GetCache(); cache.GetRemoteBytesDown() > 0 || time.Now().After(deadline) {
				break
			}
		}
		if cache.GetRemoteHits() < 1 || cache.GetRemoteBytesDown() == 0 || cache.GetBuilt() != 0 || cache.GetRemote() != ng.URL || cache.GetRemoteMode() != "read" {
			t.Errorf("GetStatus cache = %v", cache)
		}
		if c := metricCounters(t, s); c["cache_remote_hits"] != cache.GetRemoteHits() || c["cache_remote_bytes_down"] != cache.GetRemoteBytesDown() {
			t.Errorf("metrics %v disagree with GetStatus %v", c, cache)
		}
	})
	t.Run("core run --remote=off builds without it", func(t *testing.T) {
		c := copyDemo(t)
		r := mustCore(t, c, remote("read"), "run", "schemas:build", "--remote=off")
		if strings.Contains(r.Stderr, "remote") {
			t.Errorf("--remote=off still used the remote:\n%s", r.Stderr)
		}
	})
	t.Run("core doctor checks the remote", func(t *testing.T) {
		d := mustCore(t, a, remote("read-write"), "doctor")
		if !strings.Contains(d.Stdout, "remote cache: reachable, writable (read-write) at "+ng.URL) {
			t.Errorf("core doctor:\n%s", d.Stdout)
		}
	})
	t.Run("a missing credential is a clear error on core doctor, and a warning on run", func(t *testing.T) {
		env := append(remote("read"), "CORE_CACHE_REMOTE_HEADER=Authorization", "CORE_CACHE_REMOTE_HEADER_ENV=CORE_TEST_CACHE_TOKEN")
		d := runCore(t, a, env, "doctor")
		if d.Code != 1 || !strings.Contains(d.Stdout, "remote cache: the remote cache's credential is missing: cache.remote.header_env names CORE_TEST_CACHE_TOKEN, which is not set") {
			t.Errorf("core doctor:\n%s", d)
		}
		r := mustCore(t, a, env, "run", "schemas:build")
		if !strings.Contains(r.Stderr, "warning:") || !strings.Contains(r.Stderr, "CORE_TEST_CACHE_TOKEN") {
			t.Errorf("core run:\n%s", r.Stderr)
		}
	})
	t.Run("a remote that is down is one warning and a local build", func(t *testing.T) {
		c := copyDemo(t)
		ng.Stop()
		defer ng.Start()
		r := mustCore(t, c, remote("read-write"), "run", "schemas:build", "util:build")
		if n := strings.Count(r.Stderr, "warning:"); n != 1 {
			t.Errorf("%d warnings, want 1:\n%s", n, r.Stderr)
		}
		if !strings.Contains(r.Stderr, "2 succeeded") {
			t.Errorf("the run did not build locally:\n%s", r.Stderr)
		}
	})
}

// tree maps each path under dir to its mode and content (a link to its
// target).
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := []byte(fi.Mode().String() + "\n")
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v = append(v, l...)
		case fi.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v = append(v, data...)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
