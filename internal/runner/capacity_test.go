package runner

import (
	"runtime"
	"strings"
	"testing"
)

func TestCapacity(t *testing.T) {
	machine := min(runtime.NumCPU(), 8)
	cases := []struct {
		name        string
		concurrency int // as the configuration resolved it (CORE_CONCURRENCY included)
		env         map[string]string
		want        int
		wantReason  string
	}{
		{name: "CORE_CONCURRENCY wins over hosted CI", concurrency: 6, env: map[string]string{"CORE_CONCURRENCY": "6", "GITHUB_ACTIONS": "true"}, want: 6, wantReason: "CORE_CONCURRENCY=6"},
		{name: "CORE_CONCURRENCY may exceed the CPU count", concurrency: 64, env: map[string]string{"CORE_CONCURRENCY": "64"}, want: 64, wantReason: "CORE_CONCURRENCY=64"},
		{name: "a concurrency from the configuration file says so", concurrency: 3, env: map[string]string{}, want: 3, wantReason: "concurrency = 3 in the configuration"},
		{name: "a concurrency of zero lets core choose", concurrency: 0, env: map[string]string{"CORE_CONCURRENCY": "0"}, want: machine},
		{name: "GitHub-hosted runners get 4", env: map[string]string{"GITHUB_ACTIONS": "true", "RUNNER_ENVIRONMENT": "github-hosted"}, want: 4, wantReason: "hosted CI (GitHub Actions)"},
		{name: "GitHub runners without RUNNER_ENVIRONMENT count as hosted", env: map[string]string{"GITHUB_ACTIONS": "true"}, want: 4, wantReason: "hosted CI (GitHub Actions)"},
		{name: "self-hosted GitHub runners use the machine", env: map[string]string{"GITHUB_ACTIONS": "true", "RUNNER_ENVIRONMENT": "self-hosted"}, want: machine},
		{name: "Microsoft-hosted Azure agents get 4", env: map[string]string{"TF_BUILD": "True", "AGENT_ISSELFHOSTED": "0"}, want: 4, wantReason: "hosted CI (Azure Pipelines)"},
		{name: "self-hosted Azure agents use the machine", env: map[string]string{"TF_BUILD": "True", "AGENT_ISSELFHOSTED": "1"}, want: machine},
		{name: "Azure without AGENT_ISSELFHOSTED uses the machine", env: map[string]string{"TF_BUILD": "True"}, want: machine},
		{name: "CircleCI is not recognised as hosted", env: map[string]string{"CIRCLECI": "true", "CI": "true"}, want: machine},
		{name: "a plain machine uses min(CPUs, 8)", env: map[string]string{}, want: machine, wantReason: "CPUs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, reason := Capacity(c.concurrency, func(k string) string { return c.env[k] })
			if n != c.want {
				t.Errorf("n = %d, want %d", n, c.want)
			}
			if !strings.Contains(reason, c.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", reason, c.wantReason)
			}
		})
	}
}
