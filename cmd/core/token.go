package main

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/corehq/core/internal/auth"
)

func newConfigCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Configure the workspace's server"}
	console := &cobra.Command{Use: "console", Short: "Configure console access"}
	token := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke console tokens",
		Long: `Console tokens authorise the console API (Authorization: Bearer <token>).
They are stored only as SHA-256 hashes in <cache>/tokens.json (mode 0600) and
work at once, whether the server started before or after they were made.`,
	}
	token.AddCommand(newTokenCreateCmd(g), newTokenListCmd(g), newTokenRevokeCmd(g))
	console.AddCommand(token)
	cmd.AddCommand(console)
	return cmd
}

func newTokenCreateCmd(g *globals) *cobra.Command {
	var expires time.Duration
	var grants []string
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Mint a console token; it is printed once, alone on the last line",
		Example: `  core config console token create
  core config console token create --expires 1h --grant console=read
  TOKEN=$(core config console token create | tail -n1)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if expires <= 0 || expires > auth.MaxTokenTTL {
				return fmt.Errorf("--expires %s is out of range: give a duration above 0 and at most %s, such as 12h", expires, auth.MaxTokenTTL)
			}
			gr, err := auth.ParseGrants(grants)
			if err != nil {
				return fmt.Errorf("--grant: %w", err)
			}
			store, err := g.tokenStore()
			if err != nil {
				return err
			}
			secret, rec, err := store.Create(auth.KindConsole, gr, expires)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "created console token %s (%s), expires %s\n", rec.ID, strings.Join(rec.Grants, ", "), rec.ExpiresAt.Local().Format(time.DateTime))
			fmt.Fprintln(out, secret)
			return nil
		},
	}
	cmd.Flags().DurationVar(&expires, "expires", auth.ConsoleTokenTTL, "lifetime of the token")
	cmd.Flags().StringSliceVar(&grants, "grant", []string{"console=read", "console=write"}, "grant to give (repeatable): console=read, console=write")
	return cmd
}

func newTokenListCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List console tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := g.tokenStore()
			if err != nil {
				return err
			}
			recs, err := store.List()
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no tokens; mint one with `core config console token create`")
				return nil
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tKIND\tGRANTS\tCREATED\tEXPIRES\tSTATE")
			now := time.Now()
			for _, r := range recs {
				stateText := "valid"
				if r.Expired(now) {
					stateText = "expired"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Kind, strings.Join(r.Grants, ","),
					r.CreatedAt.Local().Format(time.DateTime), r.ExpiresAt.Local().Format(time.DateTime), stateText)
			}
			return tw.Flush()
		},
	}
}

func newTokenRevokeCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token by its id (see list); it stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := g.tokenStore()
			if err != nil {
				return err
			}
			if err := store.Revoke(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
			return nil
		},
	}
}

// tokenStore opens the workspace's token store, the one the server reads.
func (g *globals) tokenStore() (*auth.Store, error) {
	e, err := g.load(nil)
	if err != nil {
		return nil, err
	}
	return auth.OpenStore(e.cacheDir)
}
