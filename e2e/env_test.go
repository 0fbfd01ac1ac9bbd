package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestATargetGetsOnlyTheEnvironmentItDeclares runs the real binary with
// variables in its environment that targets.yaml declares in env:, passes
// in pass_env:, and does not name at all (a secret, and the certificate
// bundle that slows every Node start): only the first two reach the
// target, unless the run is loose, and a workspace's own config file
// cannot make it loose without trust.
func TestATargetGetsOnlyTheEnvironmentItDeclares(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{
		"targets.yaml": `projects:
  p:
    path: p
    targets:
      show:
        run: [sh, -c, 'echo "KEYED=$KEYED PASSED=$PASSED SECRET=$SECRET CA=$NODE_EXTRA_CA_CERTS"']
        env: [KEYED]
        pass_env: [PASSED]
      deploy:
        run: [sh, -c, 'test -n "$DEPLOY_TOKEN" || { echo "no deploy token"; exit 3; }']
`,
		"p/x": "",
	})
	env := []string{"KEYED=k", "PASSED=p", "SECRET=hunter2", "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt", "DEPLOY_TOKEN=d"}

	t.Run("a variable set in core's environment does not reach a target unless declared", func(t *testing.T) {
		res := mustCore(t, ws, env, "run", "p:show")
		if !strings.Contains(res.Stdout, "KEYED=k PASSED=p SECRET= CA=\n") {
			t.Errorf("the target got:\n%s", res)
		}
		if strings.Contains(res.Stderr, "environment: loose") {
			t.Errorf("a strict run says loose:\n%s", res.Stderr)
		}
	})
	t.Run("a passed variable is not in the key, a declared one is", func(t *testing.T) {
		if res := mustCore(t, ws, append(env, "PASSED=other"), "run", "p:show"); !strings.Contains(res.Stderr, "(cached)") {
			t.Errorf("a new PASSED rebuilt:\n%s", res)
		}
		if res := mustCore(t, ws, append(env, "KEYED=other"), "run", "p:show"); strings.Contains(res.Stderr, "(cached)") || !strings.Contains(res.Stdout, "KEYED=other") {
			t.Errorf("a new KEYED was replayed:\n%s", res)
		}
	})
	t.Run("a failed target's summary names what it was not given and the line to add", func(t *testing.T) {
		res := runCore(t, ws, env, "run", "p:deploy")
		if res.Code != 1 || !strings.Contains(res.Stderr, "DEPLOY_TOKEN (its command) is set here but withheld from p:deploy") || !strings.Contains(res.Stderr, "pass_env: [DEPLOY_TOKEN]") {
			t.Errorf("the summary does not name DEPLOY_TOKEN:\n%s", res)
		}
	})
	t.Run("core hash shows the mode", func(t *testing.T) {
		if out := mustCore(t, ws, env, "hash", "p:show").Stdout; !strings.Contains(out, "env mode  strict") || !strings.Contains(out, "PASSED") {
			t.Errorf("core hash:\n%s", out)
		}
		if out := mustCore(t, ws, env, "hash", "p:show", "--env-mode=loose").Stdout; !strings.Contains(out, "env mode  loose") {
			t.Errorf("core hash --env-mode=loose:\n%s", out)
		}
	})
	t.Run("loose mode passes everything, under its own key, and says so", func(t *testing.T) {
		res := mustCore(t, ws, env, "run", "p:show", "--env-mode=loose")
		if !strings.Contains(res.Stdout, "SECRET=hunter2") || strings.Contains(res.Stderr, "(cached)") {
			t.Errorf("a loose run:\n%s", res)
		}
		if !strings.Contains(res.Stderr, "environment: loose") {
			t.Errorf("the summary does not say loose:\n%s", res.Stderr)
		}
		if res := mustCore(t, ws, append(env, "CORE_ENV_MODE=loose"), "run", "p:show"); !strings.Contains(res.Stderr, "(cached)") {
			t.Errorf("CORE_ENV_MODE=loose does not find the loose run's entry:\n%s", res)
		}
	})
	t.Run("a workspace's untrusted config file cannot make it loose", func(t *testing.T) {
		writeFileAtomicAt(t, filepath.Join(ws, ".core", "config.yaml"), "env_mode: loose\n")
		res := mustCore(t, ws, env, "run", "p:show")
		if strings.Contains(res.Stdout, "hunter2") || !strings.Contains(res.Stderr, "env_mode") || !strings.Contains(res.Stderr, "core config trust") {
			t.Errorf("an untrusted env_mode: loose applied, or was not named:\n%s", res)
		}
	})
}
