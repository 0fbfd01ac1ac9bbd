package main

import (
	"os"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestTheCLIReferenceNamesEveryCommand holds docs/cli.md to the command
// tree: every command a user can run has a row in its table, under its
// whole path ("`core server start`") or, as the table abbreviates a
// family, beside its parent's ("`core server stop` / `status`").
func TestTheCLIReferenceNamesEveryCommand(t *testing.T) {
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "| `core ") {
			rows = append(rows, strings.Split(line, " | ")[0])
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			if sub.Runnable() && !documented(rows, sub) {
				t.Errorf("docs/cli.md has no row for %q", sub.CommandPath())
			}
			walk(sub)
		}
	}
	walk(newRootCmd())
}

func documented(rows []string, c *cobra.Command) bool {
	path, parent, name := c.CommandPath(), c.Parent().CommandPath(), c.Name()
	for _, row := range rows {
		if strings.Contains(row, "`"+path+" ") || strings.Contains(row, "`"+path+"`") {
			return true
		}
		if strings.Contains(row, "`"+parent+" ") && (strings.Contains(row, "`"+name+" ") || strings.Contains(row, "`"+name+"`")) {
			return true
		}
	}
	return false
}
