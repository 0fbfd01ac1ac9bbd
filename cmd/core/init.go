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
		Long: `Finds the projects of a repository and writes a targets.yaml for them:
  - a directory with go.mod: build, test and lint (go build, go test, go vet);
  - a package.json workspace package (or a lone package.json): a target for
    each of its build, test and lint scripts (npm run ...);
  - a directory with pyproject.toml: test (python3 -m pytest).
At the top it writes what those tools usually need of the environment, since
a target gets only the base variables and those targets.yaml lists: env: the
variables that change what they make (GOFLAGS, GOOS, NODE_ENV: in every key),
pass_env: those they need to reach their registries (proxies, GOPROXY,
GOPRIVATE, NPM_TOKEN, PIP_INDEX_URL: passed, not keyed), and, commented out,
their certificate variables (NODE_EXTRA_CA_CERTS costs every Node start
~50 ms; uncomment it for a target that downloads through a TLS-intercepting
proxy). It skips what is not source (.git, node_modules, the cache, .gitignore'd
paths) and writes no deps: core infers them from imports. Read the result,
then see docs/targets.md for every field. DIR is the repository (default: the
current directory). --print writes to stdout instead; an existing
targets.yaml is kept unless --force.`,
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
			projects, text, err := backend.Scaffold(root)
			if err != nil {
				return err
			}
			if len(projects) == 0 {
				return fmt.Errorf("found no project under %s (no go.mod, package.json or pyproject.toml): write targets.yaml by hand, see docs/targets.md", root)
			}
			out := cmd.OutOrStdout()
			if print {
				_, err := out.Write([]byte(text))
				return err
			}
			if err := backend.WriteFile(target, []byte(text), 0o644); err != nil {
				return err
			}
			for _, p := range projects {
				fmt.Fprintf(out, "  %-20s %-30s %s (%s)\n", p.Name, p.Path, strings.Join(p.TargetNames(), ", "), p.From)
			}
			fmt.Fprintf(out, "wrote %s with %s; next: core describe graph, core run build\n", target, plural(len(projects), "project"))
			return nil
		},
	}
	cmd.Flags().BoolVar(&print, "print", false, "print the file instead of writing it")
	cmd.Flags().BoolVar(&force, "force", false, "replace an existing targets.yaml")
	return cmd
}
