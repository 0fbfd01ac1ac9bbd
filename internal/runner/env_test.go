package runner

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/targetenv"
)

// envFixture's target prints the variables it got; SECRET is named
// nowhere in targets.yaml.
const envTargets = `env: [SHARED]
pass_env: [PROXY]
projects:
  p:
    path: p
    targets:
      show:
        run: [sh, -c, 'echo "KEYED=$KEYED PASSED=$PASSED SHARED=$SHARED PROXY=$PROXY SECRET=$SECRET"']
        env: [KEYED]
        pass_env: [PASSED]
`

// envRun runs p:show under environ and mode, and returns its result and
// what it printed (the replayed output of a cache hit too).
func envRun(t *testing.T, f *fixture, mode string, environ ...string) (TargetResult, string) {
	t.Helper()
	out := &syncBuffer{}
	environ = append([]string{"PATH=" + os.Getenv("PATH")}, environ...)
	res := f.runWith(f.runner(Options{EnvMode: mode, Environ: environ, Output: out}), "p:show")["p:show"]
	if res.Status != StateSucceeded && res.Status != StateCached {
		t.Fatalf("p:show: %+v", res)
	}
	return res, out.String()
}

func TestATargetGetsOnlyTheEnvironmentItDeclares(t *testing.T) {
	f := newFixture(t, envTargets, map[string]string{"p/x": ""})
	all := []string{"KEYED=k1", "PASSED=p1", "SHARED=s1", "PROXY=x1", "SECRET=hunter2"}

	first, out := envRun(t, f, "", all...)
	t.Run("an undeclared variable does not reach a target", func(t *testing.T) {
		if strings.Contains(out, "hunter2") || !strings.Contains(out, "SECRET=") {
			t.Errorf("SECRET reached the target in strict mode: %q", out)
		}
	})
	t.Run("declared and passed variables, its own and the workspace's, reach it", func(t *testing.T) {
		if !strings.Contains(out, "KEYED=k1 PASSED=p1 SHARED=s1 PROXY=x1") {
			t.Errorf("the target printed %q", out)
		}
	})
	t.Run("a pass_env variable is not in the key", func(t *testing.T) {
		res, out := envRun(t, f, "", "KEYED=k1", "PASSED=p2", "SHARED=s1", "PROXY=x2", "SECRET=other")
		if res.Status != StateCached || res.CacheKey != first.CacheKey {
			t.Errorf("new values of PASSED and PROXY moved the key: %+v", res)
		}
		if !strings.Contains(out, "PASSED=p1") {
			t.Errorf("the hit did not replay the first output: %q", out)
		}
	})
	for _, c := range []struct{ name, changed string }{
		{"a variable of the target's env is in the key", "KEYED=k2"},
		{"a variable of the workspace's env is in the key", "SHARED=s2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			environ := slices.Clone(all)
			for i, kv := range environ {
				if strings.SplitN(kv, "=", 2)[0] == strings.SplitN(c.changed, "=", 2)[0] {
					environ[i] = c.changed
				}
			}
			res, out := envRun(t, f, "", environ...)
			if res.Status != StateSucceeded || res.CacheKey == first.CacheKey {
				t.Errorf("a new value of %s replayed the old result: %+v", c.changed, res)
			}
			if !strings.Contains(out, c.changed) {
				t.Errorf("the target printed %q", out)
			}
		})
	}
	t.Run("loose mode passes everything, under a key of its own", func(t *testing.T) {
		res, out := envRun(t, f, targetenv.Loose, all...)
		if res.Status != StateSucceeded || res.CacheKey == first.CacheKey {
			t.Errorf("a loose run replayed a strict run's result: %+v", res)
		}
		if !strings.Contains(out, "SECRET=hunter2") {
			t.Errorf("loose mode withheld SECRET: %q", out)
		}
		j, err := ReadJournal(f.cacheDir(), res.RunID)
		if err != nil || j.EnvMode != targetenv.Loose {
			t.Errorf("the journal does not say loose: %q, %v", j.EnvMode, err)
		}
	})
	t.Run("the parts of the key name the mode and the lists", func(t *testing.T) {
		r := f.runner(Options{Environ: all})
		k, err := r.Explain(context.Background(), f.ws(), "p:show")
		if err != nil {
			t.Fatal(err)
		}
		if k.Key != first.CacheKey || k.EnvMode != targetenv.Strict || !slices.Equal(k.Declaration.PassEnv, []string{"PASSED"}) || !slices.Equal(k.WorkspacePassEnv, []string{"PROXY"}) {
			t.Errorf("parts: %+v", k)
		}
		var names []string
		for _, e := range k.Env {
			names = append(names, e.Name)
			if !e.Set || (e.Name == "SHARED") != e.Workspace {
				t.Errorf("env part %+v", e)
			}
		}
		if !slices.Equal(names, []string{"KEYED", "SHARED"}) {
			t.Errorf("env parts %v", names)
		}
	})
}

func TestAFailedTargetNamesWhatItWasNotGiven(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      deploy:
        run: [sh, -c, 'test -n "$DEPLOY_TOKEN" || { echo "no token"; exit 3; }']
      build:
        run: [npm, run, build]
      download:
        run: [sh, -c, 'echo "request to https://registry.example.com failed, reason: unable to get local issuer certificate"; exit 1']
`, map[string]string{
		"p/package.json": `{"scripts": {"build": "sh ./build.sh"}}`,
		"p/build.sh":     "#!/bin/sh\n[ -n \"$NPM_TOKEN\" ] || exit 4\n",
	})
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "DEPLOY_TOKEN=t", "NPM_TOKEN=n", "NODE_EXTRA_CA_CERTS=/etc/ca.pem", "UNRELATED=u"}
	for _, c := range []struct {
		name, target string
		want         []targetenv.Hint
	}{
		{"a variable its command names", "p:deploy", []targetenv.Hint{{Name: "DEPLOY_TOKEN", Where: "its command"}}},
		{"a variable a file its package.json script runs names", "p:build", []targetenv.Hint{{Name: "NPM_TOKEN", Where: "./build.sh, which its command runs"}}},
		{"a certificate variable, after a certificate error", "p:download", []targetenv.Hint{{Name: "NODE_EXTRA_CA_CERTS", Where: "its output: a certificate error"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.target == "p:build" {
				if _, err := exec.LookPath("npm"); err != nil {
					t.Skip("npm is not installed")
				}
			}
			res, err := f.runner(Options{Environ: environ}).Run(context.Background(), f.ws(), []string{c.target})
			if err != nil {
				t.Fatal(err)
			}
			r := byTarget(res)[c.target]
			if r.Status != StateFailed {
				t.Fatalf("%s did not fail: %+v", c.target, r)
			}
			if !slices.Equal(r.Withheld, c.want) {
				t.Errorf("hints %+v, want %+v", r.Withheld, c.want)
			}
			j, err := ReadJournal(f.cacheDir(), r.RunID)
			if err != nil || !slices.Equal(j.Withheld, c.want) {
				t.Errorf("the journal's hints %+v, %v", j.Withheld, err)
			}
		})
	}
	t.Run("loose mode gives no hint: nothing was withheld", func(t *testing.T) {
		res, err := f.runner(Options{Environ: []string{"PATH=" + os.Getenv("PATH"), "OTHER=1"}, EnvMode: targetenv.Loose}).Run(context.Background(), f.ws(), []string{"p:deploy"})
		if err != nil {
			t.Fatal(err)
		}
		if r := byTarget(res)["p:deploy"]; r.Status != StateFailed || r.Withheld != nil {
			t.Errorf("%+v", r)
		}
	})
}

// The toolchain's version command runs in the target's environment, so it
// reports what the target will find.
func TestTheToolchainCommandSeesTheTargetsEnvironment(t *testing.T) {
	f := newFixture(t, `projects:
  p:
    path: p
    targets:
      t:
        run: ["true"]
        toolchain: [sh, -c, 'echo "v=$TOOL_VERSION secret=$SECRET"']
        pass_env: [TOOL_VERSION]
`, map[string]string{"p/x": ""})
	k, err := f.runner(Options{Environ: []string{"PATH=" + os.Getenv("PATH"), "TOOL_VERSION=1.2", "SECRET=s"}}).Explain(context.Background(), f.ws(), "p:t")
	if err != nil {
		t.Fatal(err)
	}
	if k.Toolchain == nil || k.Toolchain.Version != "v=1.2 secret=" {
		t.Errorf("toolchain %+v", k.Toolchain)
	}
}
