package main

import (
	"github.com/corehq/core/backend"

	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newConfigCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Configure the workspace's server: tokens, and trust in its .core/config.yaml"}
	console := &cobra.Command{Use: "console", Short: "Configure console access"}
	token := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke console tokens",
		Long: `Console tokens authorise the console API (Authorization: Bearer <token>).
They are stored only as SHA-256 hashes in <cache>/tokens.json (mode 0600) and
work at once, whether the server started before or after they were made.`,
	}
	token.AddCommand(newTokenCreateCmd(g, backend.TokenConsole), newTokenListCmd(g, backend.TokenConsole), newTokenRevokeCmd(g, backend.TokenConsole))
	console.AddCommand(token)
	mcp := &cobra.Command{Use: "mcp", Short: "Configure access for coding agents (MCP)"}
	mcpToken := &cobra.Command{
		Use:   "token",
		Short: "Create, list and revoke mcp tokens, for agents at /mcp (scoped with --toolsets, --read-only)",
		Long: `An mcp token lets a coding agent use the MCP server at <base URL>/mcp
(Authorization: Bearer <token>); it works there alone, and a console token is
refused there. Like console tokens they are stored only as SHA-256 hashes in
<cache>/tokens.json and work at once.`,
	}
	mcpToken.AddCommand(newTokenCreateCmd(g, backend.TokenMCP), newTokenListCmd(g, backend.TokenMCP), newTokenRevokeCmd(g, backend.TokenMCP))
	mcp.AddCommand(mcpToken)
	cmd.AddCommand(console, mcp, newConfigTrustCmd(g))
	return cmd
}

func newTokenCreateCmd(g *globals, kind backend.TokenKind) *cobra.Command {
	var expires time.Duration
	var grants, toolsets []string
	var readOnly bool
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Mint a " + string(kind) + " token; it is printed once, alone on the last line",
		Example: `  core config console token create
  core config console token create --expires 1h --grant console=read
  TOKEN=$(core config console token create | tail -n1)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if expires <= 0 || expires > backend.MaxTokenTTL {
				return fmt.Errorf("--expires %s is out of range: give a duration above 0 and at most %s, such as 12h", expires, backend.MaxTokenTTL)
			}
			flag := "--grant"
			if kind == backend.TokenMCP {
				flag = "--toolsets"
				var err error
				if grants, err = backend.MCPGrants(toolsets, readOnly); err != nil {
					return fmt.Errorf("--toolsets: %w", err)
				}
			}
			tokens, err := g.tokens()
			if err != nil {
				return err
			}
			secret, rec, err := tokens.Create(kind, grants, &expires)
			if err != nil {
				return fmt.Errorf("%s: %w", flag, err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "created %s token %s (%s), expires %s\n", kind, rec.ID, strings.Join(rec.Grants, ", "), rec.ExpiresAt.Local().Format(time.DateTime))
			fmt.Fprintln(out, secret)
			return nil
		},
	}
	if kind == backend.TokenMCP {
		cmd.Example = `  core config mcp token create
  core config mcp token create --toolsets read,review       # an agent that reads and comments, and runs nothing
  core config mcp token create --read-only                  # every tool that changes nothing
  TOKEN=$(core config mcp token create | tail -n1)   # then give the agent http://127.0.0.1:7391/mcp and this token`
		cmd.Long = `Mint an mcp token for a coding agent at <base URL>/mcp. It opens every tool
unless it is scoped: --toolsets opens those toolsets alone (` + strings.Join(backend.Toolsets, ", ") + `:
docs/mcp.md lists each one's tools), --read-only only the tools that change
nothing. A tool outside the token's scope is not listed to the agent, and a
call of it is refused saying which toolset it needs. The scope shows in
the token's grants (mcp=read, ..., mcp=read-only).`
		cmd.Flags().DurationVar(&expires, "expires", backend.MCPTokenTTL, "lifetime of the token")
		cmd.Flags().StringSliceVar(&toolsets, "toolsets", nil, "toolsets the token opens, comma separated: "+strings.Join(backend.Toolsets, ", ")+" (default: all)")
		cmd.Flags().BoolVar(&readOnly, "read-only", false, "open only the tools that change nothing")
		return cmd
	}
	cmd.Flags().DurationVar(&expires, "expires", backend.ConsoleTokenTTL, "lifetime of the token")
	cmd.Flags().StringSliceVar(&grants, "grant", []string{"console=read", "console=write"}, "grant to give (repeatable): console=read, console=write")
	return cmd
}

func newTokenListCmd(g *globals, kind backend.TokenKind) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List " + string(kind) + " tokens (never their secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tokens, err := g.tokens()
			if err != nil {
				return err
			}
			all, err := tokens.List()
			if err != nil {
				return err
			}
			var recs []backend.TokenRecord
			for _, r := range all {
				if r.Kind == kind {
					recs = append(recs, r)
				}
			}
			if len(recs) == 0 {
				fmt.Fprintf(cmd.OutOrStdout(), "no %s tokens; mint one with `core config %s token create`\n", kind, kind)
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

func newTokenRevokeCmd(g *globals, kind backend.TokenKind) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a token by its id (see list); it stops working at once, and its open event streams and MCP calls end",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			tokens, err := g.tokens()
			if err != nil {
				return err
			}
			recs, err := tokens.List()
			if err != nil {
				return err
			}
			for _, r := range recs {
				if r.ID == args[0] && r.Kind != kind {
					return fmt.Errorf("%s is a %s token, not a %s token: revoke it with `core config %s token revoke %s`", r.ID, r.Kind, kind, r.Kind, r.ID)
				}
			}
			if err := tokens.Revoke(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "revoked %s\n", args[0])
			return nil
		},
	}
}

// tokens opens the workspace's token store, the one the server reads.
func (g *globals) tokens() (*backend.Tokens, error) {
	e, err := g.load(nil)
	if err != nil {
		return nil, err
	}
	return backend.OpenTokens(e.cacheDir)
}
