package e2e

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The README's "core on your repository in five minutes" is a promise that
// its commands run as shown. TestTheREADMEsFiveMinutesRunAsShown runs its
// shell block on a fresh repository, line for line, with three stand-ins a
// test needs and a person does not: core is the binary under test instead
// of what `go install` puts on the PATH, `cd` goes to the fresh repository,
// and the server listens on a free port instead of 7391 (the block's URL
// follows it). npx runs the MCP Inspector that scripts/test installed,
// at the version the block names, and the browser is a fake xdg-open.
func TestTheREADMEsFiveMinutesRunAsShown(t *testing.T) {
	block := readmeBlock(t, "## core on your repository in five minutes")
	inspectorBin := inspectorBin(t)

	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		"go.mod":              "module example.com/shop\n\ngo 1.22\n",
		"money/money.go":      "package money\n\n// Cents turns an amount in units into cents.\nfunc Cents(units int) int { return units * 100 }\n",
		"money/money_test.go": "package money\n\nimport \"testing\"\n\nfunc TestCents(t *testing.T) {\n\tif Cents(2) != 200 {\n\t\tt.Fatal(Cents(2))\n\t}\n}\n",
		"cart/cart.go":        "package cart\n\nimport \"example.com/shop/money\"\n\n// Total is the cart's total in cents.\nfunc Total(units ...int) (c int) {\n\tfor _, u := range units {\n\t\tc += money.Cents(u)\n\t}\n\treturn c\n}\n",
	})
	gitInit(t, repo)
	// The working change the block's affected and diff read.
	if err := os.WriteFile(filepath.Join(repo, "money", "money.go"), []byte("package money\n\n// Cents turns an amount in units into cents.\nfunc Cents(units int) int { return units * 100 }\n\n// Units turns cents into whole units.\nfunc Units(cents int) int { return cents / 100 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	shims := t.TempDir()
	pin := inspectorPin(t)
	npx := "#!/bin/sh\nif [ \"$1\" != '@modelcontextprotocol/inspector@" + pin + "' ]; then echo \"npx stand-in: want @modelcontextprotocol/inspector@" + pin + ", got $1\" >&2; exit 2; fi\nshift\nexec '" + inspectorBin + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(shims, "npx"), []byte(npx), 0o755); err != nil {
		t.Fatal(err)
	}
	openerPath, opened := fakeOpener(t)

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for _, line := range block {
		cmd := strings.TrimSpace(strings.SplitN(line, " #", 2)[0])
		switch {
		case strings.HasPrefix(cmd, "go install ./cmd/core"):
			continue // the binary under test is on the PATH
		case strings.HasPrefix(cmd, "cd "):
			line = "cd '" + repo + "'"
		}
		script.WriteString(strings.ReplaceAll(line, "127.0.0.1:7391", addr) + "\n")
		if strings.HasSuffix(cmd, "&") {
			// A person types the next line once the server says it is
			// ready; the script waits for the same.
			script.WriteString("for i in $(seq 300); do core server status >/dev/null 2>&1 && break; sleep 0.1; done\n")
		}
	}

	env := isolatedEnv(t, append(hostGoEnv(t),
		strings.Replace(openerPath, "PATH=", "PATH="+filepath.Dir(coreBin)+string(os.PathListSeparator)+shims+string(os.PathListSeparator), 1),
		"CORE_SERVER_ADDRESS="+addr)...)
	t.Cleanup(func() { runCore(t, repo, nil, "server", "stop") })

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	// The output goes to a file, not a pipe: the server the block starts
	// in the background holds it, and a pipe would keep Run waiting on a
	// server that did not stop.
	outPath := filepath.Join(t.TempDir(), "output")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = env, repo, out, out
	if err := cmd.Run(); err != nil {
		if st := readState(t, repo); st != nil && st.PID > 0 {
			// A server that did not stop says where it is stuck.
			_ = syscall.Kill(st.PID, syscall.SIGQUIT)
			time.Sleep(time.Second)
		}
		data, _ := os.ReadFile(outPath)
		t.Fatalf("the README's block failed: %v\n--- script\n%s--- output\n%s", err, script.String(), data)
	}
	data, _ := os.ReadFile(outPath)
	text := string(data)
	for _, want := range []string{
		"targets.yaml",        // core init says what it wrote
		"test",                // the graph and the run name the test target
		"money/money.go",      // affected and diff name the changed file
		`"query_graph"`,       // the Inspector lists the tools an agent sees
		"core server stopped", // the server stopped when asked
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the block's output lacks %q\n%s", want, text)
		}
	}
	if links := opened(1); !strings.Contains(links[0], "/console/") || !strings.HasPrefix(links[0], "http://"+addr) {
		t.Errorf("server start --open opened %q, want the console on %s", links, addr)
	}
}

// readmeBlock is the first ```sh block under heading in the README, one
// entry per command line (a line ending in \ joins the next).
func readmeBlock(t *testing.T, heading string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("README.md has no %q", heading)
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(text[i:])
	if m == nil {
		t.Fatalf("README.md's %q has no sh block", heading)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(strings.ReplaceAll(m[1], "\\\n", "")), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// inspectorPin is the MCP Inspector's version e2e/inspector pins.
func inspectorPin(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot, "e2e", "inspector", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		t.Fatal(err)
	}
	return pkg.Dependencies["@modelcontextprotocol/inspector"]
}
