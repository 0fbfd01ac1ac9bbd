package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	statusv1alpha1 "github.com/corehq/core/proto/gen/core/status/v1alpha1"
)

// TestIndexProblemsAreVisible: a doc that grows past the 2 MiB indexing
// limit while the server runs is announced (`event: diagnostic` from the
// index), listed in GetStatus, and logged; it used to leave the graph
// without a word.
func TestIndexProblemsAreVisible(t *testing.T) {
	t.Parallel()
	ws := copyDemo(t)
	s := startServer(t, ws)
	_, token := createToken(t, ws, "--grant", "console=read")
	st := openSSE(t, s, token, "index")
	st.waitFor(t, "the `: connected` comment", func(e sseEvent) bool { return e.Comment == "connected" })

	readme := filepath.Join(ws, "README.md")
	if _, err := os.Stat(readme); err != nil {
		t.Fatalf("the demo has no README.md: %v", err)
	}
	writeFileAtomic(t, ws, readme, []byte("# big\n\n"+strings.Repeat("x", 3<<20)+"\n"))
	st.waitFor(t, "an index diagnostic naming README.md", func(e sseEvent) bool {
		return e.Type == "diagnostic" && strings.Contains(e.Data, `"source":"index"`) && strings.Contains(e.Data, "README.md")
	})
	res, err := svcStatus(s, token).GetStatus(rpcCtx(t), &statusv1alpha1.GetStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var listed bool
	for _, p := range res.GetGraph().GetIndexProblems() {
		listed = listed || p.GetPath() == "README.md" && strings.Contains(p.GetMessage(), "indexing limit")
	}
	if !listed || res.GetGraph().GetIndexDiagnostics() == 0 {
		t.Errorf("GetStatus does not list README.md: %v", res.GetGraph().GetIndexProblems())
	}
	eventually(t, "the log names the file once", func() bool {
		return strings.Count(s.Stderr.String(), `"message":"not indexed"`) >= 1 && strings.Contains(s.Stderr.String(), "README.md")
	})
}
