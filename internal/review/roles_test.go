package review

import (
	"testing"

	"github.com/corehq/core/internal/workspace"
)

func TestRolesFollowTheirOrder(t *testing.T) {
	ws, err := workspace.Parse("targets.yaml", []byte(`projects:
  web:
    path: web
    targets:
      build:
        run: [node, build.mjs]
        outputs: [dist/, gen/**/*.ts]
`))
	if err != nil {
		t.Fatal(err)
	}
	web := ws.Project("web")
	for _, c := range []struct {
		path    string
		project *workspace.Project
		want    string
	}{
		{"targets.yaml", nil, RoleConfig},
		{"web/package.json", web, RoleConfig},
		{"notes.txt", nil, RoleUnclaimed},
		{"web/dist/app.js", web, RoleGenerated},
		{"web/gen/api/client.ts", web, RoleGenerated},
		{"web/config/app.yaml", web, RoleConfig},
		{"web/src/app.test.ts", web, RoleTest},
		{"web/src/app.spec.js", web, RoleTest},
		{"web/tests/helpers.ts", web, RoleTest},
		{"web/pkg/x_test.go", web, RoleTest},
		{"web/py/test_model.py", web, RoleTest},
		{"web/README.md", web, RoleDoc},
		{"web/docs/guide.html", web, RoleDoc},
		{"web/src/app.ts", web, RoleSource},
	} {
		if got := role(ws, c.project, c.path); got != c.want {
			t.Errorf("%s: role %q, want %q", c.path, got, c.want)
		}
	}
}

func TestATestIsPlacedBesideWhatItTests(t *testing.T) {
	for p, want := range map[string]string{
		"a/x_test.go":      "a/x.go",
		"x.test.ts":        "x.ts",
		"src/x.spec.tsx":   "src/x.tsx",
		"py/test_model.py": "py/model.py",
		"py/model_test.py": "py/model.py",
		"a/x.go":           "",
	} {
		if got := testedBy(p); got != want {
			t.Errorf("testedBy(%q) = %q, want %q", p, got, want)
		}
	}
}
