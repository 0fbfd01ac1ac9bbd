// Package demorepo makes a working copy of the demo workspace
// (testdata/demo) with a history of its own: six people over five months,
// files that grow commit by commit, two renames, files that change
// together, and an uncommitted change to review. The demo inside core's
// repository has core's history, one commit of it; insight's lenses and
// the Review view need a repository whose past says something.
//
// The last commit's tree is exactly the source directory, so what the
// tests and the goldens know of testdata/demo holds in the copy; the
// dates count back from now, so the lenses' windows (a year, twelve
// weeks) see all of it.
package demorepo

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/corehq/core/internal/gitx"
	"time"
)

// version changes when the history below does: a copy built by another
// version is built again.
const version = "1"

// person is an author of the demo's history.
type person struct{ name, email string }

var (
	ana    = person{"Ana Ruiz", "ana@shop.example"}
	ben    = person{"Ben Okafor", "ben@shop.example"}
	chen   = person{"Chen Wei", "chen@shop.example"}
	dara   = person{"Dara Kelly", "dara@shop.example"}
	eli    = person{"Eli Novak", "eli@shop.example"} // goes quiet: nothing in the last 90 days
	fatima = person{"Fatima Zahra", "fatima@shop.example"}
)

// step is one commit: who, how many days before now, what it says, and
// the files it touches (each grows toward its final text) or renames.
type step struct {
	days    int
	who     person
	msg     string
	touch   []string
	renames [][2]string // from, to: the file moves with its text unchanged
}

// Paths a file had before a rename, by the path it ends at.
var formerly = map[string]string{
	"libs/util/money.go": "libs/util/currency.go",
	"web/src/format.ts":  "web/src/fmt.ts",
}

// history is the demo's past, oldest first. Pairs that change together:
// services/auth/token.go with web/src/api.ts (web does not depend on auth:
// hidden coupling), services/billing/invoice.go with
// schemas/invoice.schema.json, ml/recommend/features.py with model.py.
var history = []step{
	{150, ana, "Start the shop: targets.yaml, the Go module, the util library", []string{"targets.yaml", "go.mod", "README.md", ".gitignore", "libs/util/currency.go", "libs/util/slug.go"}, nil},
	{146, eli, "auth: sign and check tokens", []string{"services/auth/token.go", "services/auth/README.md"}, nil},
	{143, eli, "auth: test token expiry", []string{"services/auth/token.go", "services/auth/token_test.go"}, nil},
	{140, ben, "api: a first handler", []string{"services/api/main.go", "services/api/README.md"}, nil},
	{138, chen, "schemas: orders and invoices", []string{"schemas/order.schema.json", "schemas/invoice.schema.json", "schemas/README.md"}, nil},
	{135, chen, "billing: invoices from orders", []string{"services/billing/invoice.go", "schemas/invoice.schema.json", "services/billing/README.md"}, nil},
	{131, ana, "web: the cart and its formatting", []string{"web/src/cart.ts", "web/src/fmt.ts", "web/README.md"}, nil},
	{128, eli, "auth: token claims the web client reads", []string{"services/auth/token.go", "web/src/api.ts"}, nil},
	{125, dara, "ml: features for recommendations", []string{"ml/recommend/features.py", "ml/recommend/__init__.py", "ml/README.md"}, nil},
	{122, dara, "ml: a first model", []string{"ml/recommend/model.py", "ml/recommend/features.py"}, nil},
	{119, fatima, "docs: getting started and the glossary", []string{"docs/README.md", "docs/getting-started.md", "docs/glossary.md"}, nil},
	{116, chen, "billing: tax lines", []string{"services/billing/invoice.go", "schemas/invoice.schema.json", "services/billing/invoice_test.go"}, nil},
	{112, ana, "util: currency is money", nil, [][2]string{{"libs/util/currency.go", "libs/util/money.go"}}},
	{110, eli, "auth: rotate the signing key; the web client follows", []string{"services/auth/token.go", "web/src/api.ts", "services/auth/token_test.go"}, nil},
	{104, ben, "api: orders endpoint", []string{"services/api/main.go", "services/api/main_test.go"}, nil},
	{99, dara, "ml: model uses the order features", []string{"ml/recommend/model.py", "ml/recommend/features.py", "ml/tests/test_model.py"}, nil},
	{95, ana, "util: money rounding", []string{"libs/util/money.go", "libs/util/util_test.go"}, nil},
	{92, eli, "auth: refresh tokens, and the web client's retry", []string{"services/auth/token.go", "web/src/api.ts"}, nil},
	{88, fatima, "docs: the architecture and the first ADR", []string{"docs/architecture.md", "docs/adr/0001-one-target-file.md"}, nil},
	{84, chen, "schemas: users", []string{"schemas/user.schema.json", "schemas/check.py"}, nil},
	{80, ben, "web: the shop's entry point", []string{"web/src/main.ts", "web/scripts/bundle.mjs"}, nil},
	{76, ana, "web: fmt is format", nil, [][2]string{{"web/src/fmt.ts", "web/src/format.ts"}}},
	{71, ben, "api: invoices endpoint", []string{"services/api/main.go", "services/api/main_test.go", "web/src/cart.ts"}, nil},
	{66, chen, "billing: credit notes", []string{"services/billing/invoice.go", "schemas/invoice.schema.json"}, nil},
	{60, dara, "ml: feature scaling", []string{"ml/recommend/features.py", "ml/recommend/model.py"}, nil},
	{55, fatima, "docs: the runbook and a link check", []string{"docs/runbook.md", "docs/check_links.py"}, nil},
	{49, ana, "util: slugs keep digits", []string{"libs/util/slug.go", "libs/util/util_test.go", "libs/util/README.md"}, nil},
	{43, ben, "web: prices through format", []string{"web/src/format.ts", "web/src/cart.ts", "web/src/main.ts"}, nil},
	{37, chen, "schemas: orders carry a currency", []string{"schemas/order.schema.json", "schemas/check.py"}, nil},
	{30, ben, "api: auth on every route", []string{"services/api/main.go", "web/src/api.ts"}, nil},
	{24, dara, "ml: tests for the ranking", []string{"ml/tests/test_model.py", "ml/recommend/model.py"}, nil},
	{17, fatima, "README: how to run the shop", []string{"README.md", "docs/getting-started.md"}, nil},
	{10, ana, "targets: lint and drift checks", []string{"targets.yaml", "libs/util/money.go"}, nil},
	{4, chen, "billing: invoice numbers", []string{"services/billing/invoice.go", "services/billing/invoice_test.go"}, nil},
	{1, ben, "web: the bundle script", []string{"web/scripts/bundle.mjs", "web/README.md"}, nil},
}

// change is the uncommitted change the Review view shows: a new function
// in the util library and a caller of it in billing.
var change = map[string]func(string) string{
	"libs/util/slug.go": func(s string) string {
		return s + `
// Initials are the first letters of the words of name, upper-cased.
func Initials(name string) string {
	var b strings.Builder
	for _, w := range strings.Fields(name) {
		b.WriteString(strings.ToUpper(w[:1]))
	}
	return b.String()
}
`
	},
	"docs/glossary.md": func(s string) string {
		return s + "- **Initials**: what an invoice shows of a customer's name (util.Initials).\n"
	},
}

// Build makes the working copy at dst from the demo workspace at src,
// unless dst already holds one built from the same source by this
// version (fresh builds it anyway). It answers whether it built one.
func Build(src, dst string, now time.Time, fresh bool) (bool, error) {
	files, stamp, err := readSource(src)
	if err != nil {
		return false, err
	}
	stampFile := filepath.Join(dst, ".git", "core-demo")
	if !fresh {
		if old, err := os.ReadFile(stampFile); err == nil && string(old) == stamp {
			return false, nil
		}
	}
	if err := os.RemoveAll(dst); err != nil {
		return false, err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return false, err
	}
	g := gitIn(dst)
	if err := g.run(nil, "init", "-q", "-b", "main"); err != nil {
		return false, err
	}
	if err := replay(g, dst, files, now); err != nil {
		return false, err
	}
	// The last commit is the source, byte for byte.
	if out, err := g.output("status", "--porcelain"); err != nil || out != "" {
		return false, fmt.Errorf("the demo's history does not end at %s (a bug in demorepo): %s%v", src, out, err)
	}
	for p, edit := range change {
		if err := os.WriteFile(filepath.Join(dst, p), []byte(edit(files[p])), 0o644); err != nil {
			return false, err
		}
	}
	return true, os.WriteFile(stampFile, []byte(stamp), 0o644)
}

// readSource reads every file of the demo, and a stamp of them and of this
// version.
func readSource(src string) (map[string]string, string, error) {
	files := map[string]string{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == ".core" || d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[rel] = string(b)
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("read the demo workspace: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "demorepo %s\n", version)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%d\x00%s", p, len(files[p]), files[p])
	}
	return files, hex.EncodeToString(h.Sum(nil)), nil
}

// replay commits the history: the k-th of a file's n touches writes the
// first k/n of its lines (and a line saying what is still to come), so the
// last touch writes its final text; a file no step touches comes whole
// with the first commit.
func replay(g git, dst string, files map[string]string, now time.Time) error {
	final := func(p string) string { // the path p ends at, through renames
		for to, from := range formerly {
			if from == p {
				return to
			}
		}
		return p
	}
	touches := map[string]int{}
	for _, s := range history {
		for _, p := range s.touch {
			if _, ok := files[final(p)]; !ok {
				return fmt.Errorf("the demo's history touches %s, which testdata/demo does not have", final(p))
			}
			touches[final(p)]++
		}
	}
	seen := map[string]int{}
	day := now.UTC().Truncate(24 * time.Hour)
	for i, s := range history {
		var add []string
		if i == 0 {
			for p := range files {
				if touches[p] == 0 {
					add = append(add, p)
				}
			}
		}
		for _, p := range add {
			if err := write(dst, p, files[p]); err != nil {
				return err
			}
		}
		for _, p := range s.touch {
			f := final(p)
			seen[f]++
			if err := write(dst, p, partial(f, files[f], seen[f], touches[f])); err != nil {
				return err
			}
		}
		for _, r := range s.renames {
			if err := g.run(nil, "mv", r[0], r[1]); err != nil {
				return err
			}
		}
		if err := g.run(nil, "add", "-A"); err != nil {
			return err
		}
		at := day.Add(-time.Duration(s.days)*24*time.Hour + time.Duration(9+i%8)*time.Hour).Format(time.RFC3339)
		env := []string{
			"GIT_AUTHOR_NAME=" + s.who.name, "GIT_AUTHOR_EMAIL=" + s.who.email, "GIT_AUTHOR_DATE=" + at,
			"GIT_COMMITTER_NAME=" + s.who.name, "GIT_COMMITTER_EMAIL=" + s.who.email, "GIT_COMMITTER_DATE=" + at,
		}
		if err := g.run(env, "commit", "-q", "--no-verify", "-m", s.msg); err != nil {
			return err
		}
	}
	return nil
}

// partial is the k-th of n versions of a file whose final text is text.
func partial(path, text string, k, n int) string {
	if k >= n {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	keep := max(1, len(lines)*k/n)
	out := strings.Join(lines[:keep], "")
	if !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	switch filepath.Ext(path) {
	case ".go", ".ts", ".mjs":
		out += fmt.Sprintf("// to do: %d more changes\n", n-k)
	case ".py", ".yaml", ".gitignore", "":
		out += fmt.Sprintf("# to do: %d more changes\n", n-k)
	case ".md":
		out += fmt.Sprintf("<!-- to do: %d more changes -->\n", n-k)
	}
	return out
}

func write(dst, rel, text string) error {
	p := filepath.Join(dst, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

// git runs git in one repository through gitx (no program the repository
// or the user's configuration names runs), with the user's signing and
// templates out of the way: the demo's commits are made the same way on
// every machine.
type git struct{ dir string }

func gitIn(dir string) git { return git{dir} }

func (g git) cmd(env []string, args ...string) *exec.Cmd {
	args = append([]string{"-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null", "-c", "init.templateDir=", "-c", "core.autocrlf=false"}, args...)
	c := gitx.Command(context.Background(), g.dir, args...)
	c.Env = append(c.Env, env...)
	return c
}

func (g git) run(env []string, args ...string) error {
	c := g.cmd(env, args...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

func (g git) output(args ...string) (string, error) {
	out, err := g.cmd(nil, args...).Output()
	return string(out), err
}
