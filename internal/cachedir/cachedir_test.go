package cachedir

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/cache-directory.md from Layout")

// The docs' page on the cache directory is Layout written out.
func TestTheDocsListTheLayout(t *testing.T) {
	var b strings.Builder
	b.WriteString("# The cache directory\n\n")
	b.WriteString("Everything core keeps for a workspace is in its cache directory: `<workspace>/.core` unless `cache_dir` (`CORE_CACHE_DIR`) says otherwise. With the server stopped, deleting it loses the build cache, the run log, the tokens, the notes and the review sessions, and nothing of the workspace: the next command builds what it needs again.\n\n")
	b.WriteString("Generated from `internal/cachedir` by `go test ./internal/cachedir -update`; a test fails when it is out of date.\n\n")
	b.WriteString("| name | kept by | holds |\n|---|---|---|\n")
	for _, e := range Layout {
		fmt.Fprintf(&b, "| `%s` | `%s` | %s |\n", e.Name, e.Keeper, e.Holds)
	}
	path := filepath.Join("..", "..", "docs", "cache-directory.md")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != b.String() {
		t.Errorf("%s is out of date (%v): go test ./internal/cachedir -update", path, err)
	}
}

// Every path function names an entry of Layout.
func TestEveryPathIsInTheLayout(t *testing.T) {
	names := map[string]bool{}
	for _, e := range Layout {
		names[strings.TrimSuffix(e.Name, "/")] = true
	}
	for _, f := range []func(string) string{ServerState, ServerStateLock, ServerLock, Tokens, TokensLock, Index, IndexLock, Build, Keys, KeyParts, Restore, Locks, Runs, Reviews, MergeWatch, Insight, Activity, Notes, Jobs, Attention, SessionJobs, Console} {
		top := strings.SplitN(f("d")[2:], "/", 2)[0]
		if !names[top] {
			t.Errorf("%s is not in Layout", f("d"))
		}
	}
}
