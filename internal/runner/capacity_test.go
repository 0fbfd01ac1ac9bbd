package runner

import (
	"runtime"
	"strings"
	"testing"
)

func TestCapacity(t *testing.T) {
	machine := min(runtime.NumCPU(), 8)
	cases := []struct {
		name       string
		env        map[string]string
		want       int
		wantReason string
		wantErr    string
	}{
		{name: "CORE_CONCURRENCY wins", env: map[string]string{"CORE_CONCURRENCY": "6", "GITHUB_ACTIONS": "true"}, want: 6, wantReason: "CORE_CONCURRENCY=6"},
		{name: "CORE_CONCURRENCY may exceed the CPU count", env: map[string]string{"CORE_CONCURRENCY": "64"}, want: 64, wantReason: "CORE_CONCURRENCY=64"},
		{name: "CORE_CONCURRENCY of zero lets core choose", env: map[string]string{"CORE_CONCURRENCY": "0"}, want: machine},
		{name: "a negative CORE_CONCURRENCY is an error", env: map[string]string{"CORE_CONCURRENCY": "-2"}, wantErr: "CORE_CONCURRENCY"},
		{name: "a non-number CORE_CONCURRENCY is an error", env: map[string]string{"CORE_CONCURRENCY": "four"}, wantErr: "CORE_CONCURRENCY"},
		{name: "a huge CORE_CONCURRENCY is an error", env: map[string]string{"CORE_CONCURRENCY": "100000"}, wantErr: "CORE_CONCURRENCY"},
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
			n, reason, err := Capacity(func(k string) string { return c.env[k] })
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != c.want {
				t.Errorf("n = %d, want %d", n, c.want)
			}
			if !strings.Contains(reason, c.wantReason) {
				t.Errorf("reason = %q, want it to contain %q", reason, c.wantReason)
			}
		})
	}
}
