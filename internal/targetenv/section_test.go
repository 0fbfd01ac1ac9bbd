package targetenv

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corehq/core/internal/workspace"
)

func TestInitWritesWhatItsToolsNeedOfTheEnvironment(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"api/go.mod":       "module example.com/api\n",
		"web/package.json": `{"scripts": {"build": "tsc"}}`,
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := workspace.Scaffold(root, workspace.ScaffoldOptions{Environment: Section})
	if err != nil {
		t.Fatal(err)
	}
	text := sc.Text
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
	t.Run("a repository of no tool it knows gets no section", func(t *testing.T) {
		if s := Section([]string{"Cargo.toml"}); s != "" {
			t.Errorf("Section = %q", s)
		}
	})
}
