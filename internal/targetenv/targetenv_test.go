package targetenv

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var environ = []string{
	"PATH=/usr/bin", "HOME=/home/u", "LC_ALL=C.UTF-8", "GOCACHE=/cache/go",
	"NODE_EXTRA_CA_CERTS=/etc/ca.pem", "NPM_TOKEN=secret", "GOFLAGS=-tags=x",
	"AWS_REGION=eu", "AWS_PROFILE=dev", "PWD=/elsewhere", "SHLVL=2", "FOO=1", "FOO=2",
}

func names(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		out = append(out, name)
	}
	return out
}

func TestFor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		mode  string
		lists [][]string
		want  []string
	}{
		{"strict mode passes the base alone", Strict, nil,
			[]string{"GOCACHE", "HOME", "LC_ALL", "PATH", "PWD"}},
		{"strict mode passes what the lists name", Strict, [][]string{{"GOFLAGS"}, {"NPM_TOKEN"}},
			[]string{"GOCACHE", "GOFLAGS", "HOME", "LC_ALL", "NPM_TOKEN", "PATH", "PWD"}},
		{"a name ending in * passes every variable it starts", Strict, [][]string{{"AWS_*"}},
			[]string{"AWS_PROFILE", "AWS_REGION", "GOCACHE", "HOME", "LC_ALL", "PATH", "PWD"}},
		{"loose mode passes everything", Loose, nil,
			[]string{"AWS_PROFILE", "AWS_REGION", "FOO", "GOCACHE", "GOFLAGS", "HOME", "LC_ALL", "NODE_EXTRA_CA_CERTS", "NPM_TOKEN", "PATH", "SHLVL", "PWD"}},
		{"an unknown mode is strict", "lax", nil,
			[]string{"GOCACHE", "HOME", "LC_ALL", "PATH", "PWD"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := New(c.mode, environ).For("/ws/p", c.lists...)
			if got := names(env); !slices.Equal(got, c.want) {
				t.Errorf("passed %v, want %v", got, c.want)
			}
			if !slices.Contains(env, "PWD=/ws/p") {
				t.Errorf("PWD is not the target's directory: %v", env)
			}
		})
	}
	t.Run("the last of a repeated variable wins", func(t *testing.T) {
		if v, _ := New(Loose, environ).Lookup("FOO"); v != "2" {
			t.Errorf("FOO = %q", v)
		}
		if env := New(Loose, environ).For(""); !slices.Contains(env, "FOO=2") || slices.Contains(env, "FOO=1") {
			t.Errorf("%v", env)
		}
	})
}

func TestWithheld(t *testing.T) {
	t.Parallel()
	got := New(Strict, environ).Withheld([]string{"GOFLAGS"}, []string{"AWS_*"})
	if want := []string{"FOO", "NODE_EXTRA_CA_CERTS", "NPM_TOKEN"}; !slices.Equal(got, want) {
		t.Errorf("withheld %v, want %v (PWD and SHLVL are the shell's)", got, want)
	}
	if got := New(Loose, environ).Withheld(); got != nil {
		t.Errorf("loose mode withholds %v", got)
	}
}

func TestHints(t *testing.T) {
	t.Parallel()
	withheld := []string{"FOO", "HTTPS_PROXY", "NODE_EXTRA_CA_CERTS", "NPM_TOKEN", "TOKEN"}
	for _, c := range []struct {
		name    string
		sources []Source
		want    []Hint
	}{
		{"a variable the command names is hinted at", []Source{{Where: "its command", Text: `sh -c "test -n $NPM_TOKEN"`}},
			[]Hint{{"NPM_TOKEN", "its command"}}},
		{"a name inside another is not", []Source{{Where: "its command", Text: "echo $NPM_TOKENS FOOD"}},
			nil},
		{"each variable is named once, where it is first seen", []Source{
			{Where: "its command", Text: "echo $FOO"},
			{Where: "its output", Text: "FOO is empty; TOKEN missing", Output: true}},
			[]Hint{{"FOO", "its command"}, {"TOKEN", "its output"}}},
		{"a certificate error names the certificate variables", []Source{
			{Where: "its output", Text: "npm ERR! code UNABLE_TO_GET_ISSUER_CERT_LOCALLY\nunable to get local issuer certificate", Output: true}},
			[]Hint{{"NODE_EXTRA_CA_CERTS", "its output: a certificate error"}}},
		{"a network error names the proxy variables", []Source{
			{Where: "its output", Text: "dial tcp: lookup proxy.golang.org: i/o timeout", Output: true}},
			[]Hint{{"HTTPS_PROXY", "its output: a network error"}}},
		{"a command that only mentions certificates is not an error", []Source{
			{Where: "its command", Text: "openssl x509: certificate"}},
			nil},
		{"nothing named, no hint", []Source{{Where: "its output", Text: "exit 1", Output: true}},
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Hints(withheld, c.sources); !slices.Equal(got, c.want) {
				t.Errorf("hints %v, want %v", got, c.want)
			}
		})
	}
	t.Run("no withheld variable, no hint", func(t *testing.T) {
		if got := Hints(nil, []Source{{Where: "its command", Text: "FOO"}}); got != nil {
			t.Errorf("%v", got)
		}
	})
}

func TestAdviceNamesTheLineToAdd(t *testing.T) {
	t.Parallel()
	got := Advice("web:build", []Hint{{"NPM_TOKEN", "its package.json script build"}, {"FOO", "its output"}}, "    ")
	for _, want := range []string{
		"NPM_TOKEN (its package.json script build), FOO (its output) are set here but withheld from web:build",
		"\n      pass_env: [NPM_TOKEN, FOO]\n",
		"--env-mode=loose",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("advice lacks %q:\n%s", want, got)
		}
	}
	if Advice("web:build", nil, "") != "" {
		t.Error("advice without hints")
	}
}

// TestTheDocsListTheBase keeps docs/targets.md's list of the base in step
// with the one list here.
func TestTheDocsListTheBase(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "targets.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, name := range Base() {
		if !strings.Contains(text, "`"+name+"`") {
			t.Errorf("docs/targets.md does not list %s of the base", name)
		}
	}
}
