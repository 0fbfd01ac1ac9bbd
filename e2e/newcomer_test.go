package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tinyWorkspace writes a workspace of one project, a, with targets.
func tinyWorkspace(t *testing.T, targets string) string {
	t.Helper()
	ws := t.TempDir()
	writeFileAtomicAt(t, filepath.Join(ws, "a", "README.md"), "# a\n")
	writeFileAtomicAt(t, filepath.Join(ws, "targets.yaml"), "projects:\n  a:\n    path: a\n    targets:\n"+targets)
	return ws
}

// A bare word searches ids and names, not symbols: when it finds nothing
// and a symbol has that name, the answer names the symbol: term.
func TestAQueryForASymbolsNameSaysToAskForTheSymbol(t *testing.T) {
	ws := copyDemo(t)
	for _, word := range []string{"Slugify", "slugify"} {
		r := runCore(t, ws, nil, "query", word)
		if r.Code == 0 || !strings.Contains(r.Stderr, "symbol:Slugify (libs/util/slug.go:11)") || !strings.Contains(r.Stderr, "core query symbol:Slugify") {
			t.Errorf("core query %s:\n%s", word, r)
		}
	}
	if r := runCore(t, ws, nil, "query", "nosuchthing"); r.Code == 0 || strings.Contains(r.Stderr, "symbol:") {
		t.Errorf("a word that is no symbol's name:\n%s", r)
	}
}

func TestARunIsShownByAUniquePrefixOfItsIdOrLast(t *testing.T) {
	ws := tinyWorkspace(t, "      hello: {run: [sh, -c, 'echo hello from a'], inputs: ['**/*']}\n")
	mustCore(t, ws, nil, "run", "a:hello")
	mustCore(t, ws, nil, "run", "a:hello", "--force")
	var ids []string
	for _, line := range strings.Split(mustCore(t, ws, nil, "runs").Stdout, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			ids = append(ids, f[0])
		}
	}
	if len(ids) != 2 {
		t.Fatalf("core runs lists %d runs, want 2: %q", len(ids), ids)
	}
	newest, older := ids[0], ids[1]
	_, random, _ := strings.Cut(older, "-")
	for _, c := range []struct{ ref, want string }{
		{"last", newest},
		{newest, newest},
		{random[:6], older},
		{newest[:len(newest)-4], newest},
	} {
		r := mustCore(t, ws, nil, "runs", "show", c.ref)
		if !strings.HasPrefix(r.Stdout, "run      "+c.want+"\n") || !strings.Contains(r.Stdout, "hello from a") {
			t.Errorf("core runs show %s:\n%s", c.ref, r)
		}
	}
	r := runCore(t, ws, nil, "runs", "show", "r")
	if r.Code == 0 || !strings.Contains(r.Stderr, "names more than one run") || !strings.Contains(r.Stderr, newest) || !strings.Contains(r.Stderr, older) {
		t.Errorf("an ambiguous prefix does not name the runs it could be:\n%s", r)
	}
	if r := runCore(t, ws, nil, "runs", "show", "fffffffff"); r.Code == 0 || !strings.Contains(r.Stderr, "no run starts with") {
		t.Errorf("a prefix of no run:\n%s", r)
	}
}

func TestCoreRunOutsideAWorkspaceSuggestsCoreInit(t *testing.T) {
	r := runCore(t, "", nil, "run", "build")
	if r.Code == 0 || !strings.Contains(r.Stderr, "`core init`") {
		t.Errorf("core run outside a workspace:\n%s", r)
	}
	empty := t.TempDir()
	if r := runCore(t, empty, nil, "run", "build"); r.Code == 0 || !strings.Contains(r.Stderr, "core init "+empty) {
		t.Errorf("core --workspace DIR run without targets.yaml there:\n%s", r)
	}
}

// python3 on the PATH says nothing of the module a target runs with -m.
func TestDoctorChecksTheModulesATargetRunsWithPythonDashM(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	ws := tinyWorkspace(t, "      test: {run: [python3, -m, core_e2e_no_such_module]}\n      fmt: {run: [python3, -B, -m, json.tool, x.json]}\n")
	r := runCore(t, ws, nil, "doctor")
	for _, want := range []string{
		"tool python3: ok",
		"tool python3 -m core_e2e_no_such_module: not installed: python3 cannot import core_e2e_no_such_module (used by a:test)",
		"tool python3 -m json.tool: ok (used by a:fmt)",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("core doctor does not say %q:\n%s", want, r)
		}
	}
	if r.Code == 0 {
		t.Errorf("core doctor exits 0 with a module missing:\n%s", r)
	}
}

func TestDoctorLooksInsideNpxAndShellCommandLines(t *testing.T) {
	ws := tinyWorkspace(t, "      lint: {run: [npx, --yes, core-e2e-no-such-bin, .]}\n"+
		"      fmt: {run: [npx, core-e2e-here, --check]}\n"+
		"      gen: {run: [sh, -c, \"core-e2e-no-such-tool --out gen && echo done\"]}\n")
	writeFileAtomicAt(t, filepath.Join(ws, "node_modules", ".bin", "core-e2e-here"), "#!/bin/sh\n")
	r := runCore(t, ws, nil, "doctor")
	for _, want := range []string{
		"tool npx core-e2e-no-such-bin: not installed: no node_modules/.bin/core-e2e-no-such-bin, so npx would download it on every run (used by a:lint)",
		"tool npx core-e2e-here: ok (in node_modules/.bin; used by a:fmt)",
		"tool core-e2e-no-such-tool: not found on PATH (used by a:gen)",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("core doctor does not say %q:\n%s", want, r)
		}
	}
	if r.Code == 0 {
		t.Errorf("core doctor exits 0 with a tool missing:\n%s", r)
	}
}

func TestCoreShareSaysWhichAddressItTook(t *testing.T) {
	ws := copyDemo(t)
	startServer(t, ws, "CORE_SHARE_ADDRESS=127.0.0.2")
	r := mustCore(t, ws, nil, "share", "--ttl", "1m")
	t.Cleanup(func() { runCore(t, ws, nil, "share", "stop") })
	if !strings.Contains(r.Stdout, "\naddress: 127.0.0.2, from share.address\n") {
		t.Errorf("core share does not say where it shares and why:\n%s", r)
	}
}
