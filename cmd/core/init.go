package main

import (
	"github.com/corehq/core/backend"

	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

func newInitCmd(g *globals) *cobra.Command {
	var print, force bool
	cmd := &cobra.Command{
		Use:   "init [DIR] [--print] [--force]",
		Short: "Write a starting targets.yaml for an existing repository",
		Long: `Finds the projects of a repository and writes a targets.yaml whose targets
run on the first try:
  - npm, pnpm, yarn and bun workspace packages (or a lone package.json): a
    target for each of the build, test and lint scripts, run by the
    workspace's package manager (npm run build, pnpm run build, ...). A
    defaults: block makes each build depend on the builds of the packages
    it depends on ("^build"), and test and lint on them too, and test on
    its own project's build where there is one. A build's outputs are the
    tsconfig's outDir and declarationDir and the directories main, module,
    types, exports, bin and files name that are not source (absent, or
    ignored by git), so a cached build restores them;
  - Go modules (those go.work uses, when there is one): build, test and vet
    (go build, go test, go vet ./...);
  - Python projects (pyproject.toml, setup.py, setup.cfg): test with the
    runner the project uses, pytest (configured, required, a conftest.py, or
    tests unittest would not find) when python3 can import it, else unittest
    when the tests are unittest's (with env PYTHONPATH=src in front for a
    src layout that is not installed); lint with ruff when the project uses
    it and it is installed. What cannot run here is left out, with why and
    the fix, as a comment in the file.
It names what to do before the first run: packages not installed (npm
install), a package manager that does not run here, a module go.work leaves
out.
At the top it writes what those tools usually need of the environment, since
a target gets only the base variables and those targets.yaml lists: env: the
variables that change what they make (GOFLAGS, GOOS, NODE_ENV: in every key),
pass_env: those they need to reach their registries (proxies, GOPROXY,
GOPRIVATE, NPM_TOKEN, PIP_INDEX_URL: passed, not keyed), and, commented out,
their certificate variables (NODE_EXTRA_CA_CERTS costs every Node start
~50 ms; uncomment it for a target that downloads through a TLS-intercepting
proxy). It skips what is not source (.git, node_modules, vendor, testdata,
the cache, .gitignore'd paths) and writes no project deps: core infers them
from manifests and imports. It then prints the "core run" line that runs the
targets it wrote. See docs/targets.md for every field. DIR is the repository
(default: the current directory). --print writes to stdout instead; an
existing targets.yaml is kept unless --force.`,
		Example: `  core init
  core init ../other-repo --print`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			} else if g.workspace != "" {
				dir = g.workspace
			}
			root, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			if st, err := os.Stat(root); err != nil || !st.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			target := filepath.Join(root, backend.TargetsFile)
			if _, err := os.Stat(target); err == nil && !force && !print {
				return fmt.Errorf("%s already exists: --print shows what init would write, --force replaces it", target)
			}
			sc, err := backend.Scaffold(root)
			if err != nil {
				return err
			}
			if len(sc.Projects) == 0 {
				for _, n := range sc.Notes {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", n)
				}
				return fmt.Errorf("found no project under %s (no go.mod, package.json, pyproject.toml, setup.py or setup.cfg): write targets.yaml by hand, see docs/targets.md", root)
			}
			out := cmd.OutOrStdout()
			if print {
				for _, n := range sc.Notes {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s\n", n)
				}
				_, err := out.Write([]byte(sc.Text))
				return err
			}
			if err := backend.WriteFile(target, []byte(sc.Text), 0o644); err != nil {
				return err
			}
			for _, p := range sc.Projects {
				names := strings.Join(p.TargetNames(), ", ")
				if names == "" {
					names = "no targets"
				}
				fmt.Fprintf(out, "  %-20s %-30s %s (%s)\n", p.Name, p.Path, names, p.From)
				for _, s := range p.Skipped {
					fmt.Fprintf(out, "  %-20s %s\n", "", strings.ReplaceAll(s, "\n", " "))
				}
			}
			for _, n := range sc.Notes {
				fmt.Fprintf(out, "note: %s\n", n)
			}
			next := "core describe graph (init wrote no target: add them to targets.yaml, see docs/targets.md)"
			if names := sc.Next(); len(names) > 0 {
				next = "core run " + strings.Join(names, " ")
			}
			fmt.Fprintf(out, "wrote %s with %s; next: %s\n", target, plural(len(sc.Projects), "project"), next)
			return nil
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the file instead of writing it")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing targets.yaml")
	return cmd
}
