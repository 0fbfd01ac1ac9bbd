package main

import (
	"github.com/spf13/cobra"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/server"
)

func newRoutesCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "routes",
		Short: "Print the exposure matrix of routes.yaml",
		Long: `Prints every route the server can answer, from the routes.yaml compiled into
this binary, checked exactly as the server checks it: name, method, path, the
grant a token needs, and on which listener it is exposed (loopback, share).
Rows marked console are removed when console.enabled is false or the server
binds a non-loopback address. A build without MCP (go build -tags nomcp)
prints only what it serves: no /mcp and no console rows.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := server.RouteTable()
			if err != nil {
				return err
			}
			keep := server.Keep(true)
			served := &gateway.Table{}
			for _, r := range t.Rows {
				if keep(&r) {
					served.Rows = append(served.Rows, r)
				}
			}
			_, err = cmd.OutOrStdout().Write([]byte(gateway.Matrix(served)))
			return err
		},
	}
}
