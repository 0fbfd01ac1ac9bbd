package backend

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/corehq/core/internal/testreport"
	"github.com/corehq/core/internal/workspace"
)

func TestJUnitReportsAreReadFromTheTargetsOutputsOnly(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	report := `<testsuites><testsuite name="web" tests="2">
  <testcase classname="web.slug" name="lowercases"><failure message="expected a_b">at slug.test.js:4</failure></testcase>
  <testcase classname="web.slug" name="trims"/>
</testsuite></testsuites>`
	for p, data := range map[string]string{
		filepath.Join(root, "web/reports/unit.xml"):  report,
		filepath.Join(outside, "elsewhere/more.xml"): report,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A link among the outputs to a report outside the workspace is not read.
	if err := os.Symlink(filepath.Join(outside, "elsewhere/more.xml"), filepath.Join(root, "web/reports/linked.xml")); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Parse("targets.yaml", []byte("projects:\n  web:\n    path: web\n    targets:\n      test:\n        run: [npm, test]\n        outputs: [reports/]\n"))
	if err != nil {
		t.Fatal(err)
	}
	one, _ := testreport.ParseJUnit([]byte(report))
	r, ok := junitOf(root, ws, "web:test")
	if !ok || r.Total != one.Total || len(r.Failures) != 1 {
		t.Errorf("junitOf = %+v, %v: want the one report inside (%d tests, 1 failure)", r, ok, one.Total)
	}
}
