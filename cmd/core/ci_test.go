package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestTheCIFlagsSayWhatIsWrong: a mistake in the shard or report flags is
// named, with the fix, before anything is read or run.
func TestTheCIFlagsSayWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a shard past N names the bounds", []string{"run", "test", "--shard", "5/4"}, "shard 5 of 4: I must be between 1 and N"},
		{"a shard written otherwise says how", []string{"run", "test", "--shard", "2"}, "write I/N"},
		{"--history goes with --shard", []string{"run", "test", "--history", "h"}, "it goes with --shard I/N"},
		{"the plan needs N", []string{"ci", "plan", "--affected", "test"}, "--shards N is required"},
		{"the plan needs a selection", []string{"ci", "plan", "--shards", "4"}, "or use --affected TARGET"},
		{"zero shards", []string{"ci", "plan", "--shards", "0", "test"}, "--shards 0: N must be between 1 and 256"},
		{"one matrix form or the whole plan", []string{"ci", "plan", "--shards", "4", "test", "--json", "--matrix", "github"}, "alternatives"},
		{"a matrix core does not write", []string{"ci", "plan", "--shards", "4", "test", "--matrix", "buildkite"}, "use github"},
		{"the report's plan needs both halves", []string{"ci", "report", "dir", "--shards", "4"}, "--shards N and --affected TARGET go together"},
		{"the report needs a directory", []string{"ci", "report"}, "requires at least 1 arg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := newRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			root.SetArgs(append([]string{"--workspace", t.TempDir()}, c.args...))
			err := root.Execute()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("core %s: %v, want an error with %q", strings.Join(c.args, " "), err, c.want)
			}
		})
	}
}
