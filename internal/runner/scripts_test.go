package runner

import (
	"context"
	"strings"
	"testing"
)

func TestScriptNameReadsThePackageManagers(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"npm", "run", "build"}, "build"},
		{[]string{"npm", "test"}, "test"},
		{[]string{"npm", "install"}, ""},
		{[]string{"/usr/bin/pnpm", "run", "lint"}, "lint"},
		{[]string{"pnpm", "build"}, "build"},
		{[]string{"yarn", "run", "e2e"}, "e2e"},
		{[]string{"bun", "run", "dev"}, "dev"},
		{[]string{"go", "build", "./..."}, ""},
		{[]string{"npm"}, ""},
	} {
		if got := scriptName(c.argv); got != c.want {
			t.Errorf("scriptName(%v) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestAMissingScriptIsRefusedBeforeAnythingRuns(t *testing.T) {
	f := newFixture(t, `projects:
  web:
    path: web
    targets:
      build:
        run: [npm, run, biuld]
`, map[string]string{"web/package.json": `{"scripts":{"build":"tsc"}}`})
	_, err := f.runner(Options{}).Run(context.Background(), f.ws(), []string{"web:build"})
	if err == nil || !strings.Contains(err.Error(), `runs the script "biuld", which web/package.json does not define`) {
		t.Fatalf("a missing script: %v", err)
	}
}

// A script of a project whose package.json the workspace did not read
// (there is none) is refused with what a read of it says.
func TestAScriptOfAProjectWithoutAPackageJSONIsRefusedSayingWhy(t *testing.T) {
	f := newFixture(t, `projects:
  web:
    path: web
    targets:
      build:
        run: [npm, run, build]
`, map[string]string{"web/index.js": ""})
	_, err := f.runner(Options{}).Run(context.Background(), f.ws(), []string{"web:build"})
	if err == nil || !strings.Contains(err.Error(), `runs the package.json script "build", but web/package.json cannot be read`) {
		t.Fatalf("a script without a package.json: %v", err)
	}
}
