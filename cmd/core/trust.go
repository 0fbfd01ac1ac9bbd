package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/config"
)

func newConfigTrustCmd(g *globals) *cobra.Command {
	var revoke bool
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Trust the workspace's .core/config.yaml as it is now, so that its credential and exposure keys apply",
		Long: `The workspace's .core/config.yaml comes with the repository. The keys in it
that carry or route a credential, or widen who can reach this machine, are
ignored, with a warning, until you trust the file:
` + guardedKeys() + `

Read the file first. This records its path and the SHA-256 of its content
outside the workspace ($XDG_STATE_HOME/core/trust.json, else
~/.local/state/core/trust.json) and lists the values that now apply. Any
change to the file makes it untrusted again: read the change, then run this
again. "core doctor" says whether the file is trusted.

Your own config file ($XDG_CONFIG_HOME/core/config.yaml), the environment
and flags need no trust.`,
		Example: `  core config trust
  core config trust --revoke`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := g.resolveRoot()
			if err != nil {
				return err
			}
			st, err := config.Trust(root, "", revoke)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if revoke {
				fmt.Fprintf(out, "%s is no longer trusted (%s): its credential and exposure keys are ignored again\n", st.File, st.TrustFile)
				return nil
			}
			fmt.Fprintf(out, "trusted %s (sha256 %s, recorded in %s)\n", st.File, st.SHA256[:16], st.TrustFile)
			if len(st.Guarded) == 0 {
				fmt.Fprintln(out, "it sets no key that waits for trust")
			} else {
				fmt.Fprintln(out, "these values of it now apply:")
				for _, k := range st.Guarded {
					fmt.Fprintf(out, "  %s = %s\n", k, st.Values[k])
				}
			}
			fmt.Fprintf(out, "a change to the file makes it untrusted again: read the change, then run `%s` again\n", config.TrustCommand)
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "forget the trust instead: its credential and exposure keys are ignored again")
	return cmd
}

// guardedKeys lists the keys that wait for trust, from the config's own
// tags, for the help text.
func guardedKeys() string {
	var b strings.Builder
	for _, k := range config.Keys() {
		if k.Trust == "" {
			continue
		}
		fmt.Fprintf(&b, "\n  %s", k.Key)
		if rule := strings.TrimPrefix(k.Trust, "once trusted"); rule != "" {
			fmt.Fprintf(&b, " (%s)", strings.TrimPrefix(rule, ", "))
		}
	}
	return b.String()
}
