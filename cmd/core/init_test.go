package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/workspace"
)

func TestInitWritesWhatItsToolsNeedOfTheEnvironment(t *testing.T) {
	text, err := renderTargets([]initProject{
		{Name: "api", Path: "api", from: "go.mod", targets: [][2]any{{"build", []string{"go", "build", "./..."}}}},
		{Name: "web", Path: "web", from: "package.json", targets: [][2]any{{"build", []string{"npm", "run", "build"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.Parse(workspace.FileName, []byte(text))
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, c := range []struct {
		name string
		list []string
		want []string
		not  []string
	}{
		{"what changes what the tools make is in every key", ws.Env, []string{"GOFLAGS", "GOOS", "NODE_ENV"}, []string{"HTTPS_PROXY"}},
		{"proxies and registry settings are passed", ws.PassEnv, []string{"HTTPS_PROXY", "no_proxy", "GOPRIVATE", "NPM_TOKEN"}, []string{"NODE_EXTRA_CA_CERTS", "PIP_INDEX_URL"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, w := range c.want {
				if !slices.Contains(c.list, w) {
					t.Errorf("%v lacks %s", c.list, w)
				}
			}
			for _, n := range c.not {
				if slices.Contains(c.list, n) {
					t.Errorf("%v has %s", c.list, n)
				}
			}
		})
	}
	t.Run("certificate variables are there to uncomment, not passed", func(t *testing.T) {
		if !strings.Contains(text, "  # - NODE_EXTRA_CA_CERTS\n") {
			t.Errorf("no commented NODE_EXTRA_CA_CERTS:\n%s", text)
		}
	})
}
