package runner

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// MaxCapacity bounds CORE_CONCURRENCY, like the concurrency setting's
// validation does.
const MaxCapacity = 1024

// HostedCICapacity is the pool size on a hosted CI runner: those machines
// advertise more CPUs than a job can use at once.
const HostedCICapacity = 4

// Capacity picks the pool size, and says why:
//
//   - CORE_CONCURRENCY, when set and not 0: a whole number from 1 to 1024
//     (0 means "choose for me", as the concurrency setting's default does;
//     anything else is an error naming the variable);
//   - 4 on a hosted CI runner (see the package comment for the detection);
//   - otherwise min(runtime.NumCPU(), 8).
func Capacity(getenv func(string) string) (n int, reason string, err error) {
	if v := strings.TrimSpace(getenv("CORE_CONCURRENCY")); v != "" && v != "0" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxCapacity {
			return 0, "", fmt.Errorf("CORE_CONCURRENCY=%q is not a whole number from 0 to %d: set it to how many targets may run at once (e.g. CORE_CONCURRENCY=4), or 0 or unset to let core choose", v, MaxCapacity)
		}
		return n, "CORE_CONCURRENCY=" + strconv.Itoa(n), nil
	}
	if ci := HostedCI(getenv); ci != "" {
		return HostedCICapacity, "hosted CI (" + ci + ")", nil
	}
	cpus := runtime.NumCPU()
	n = min(cpus, 8)
	if n < 1 {
		n = 1
	}
	return n, fmt.Sprintf("min(%d CPUs, 8)", cpus), nil
}

// HostedCI names the hosted CI service the process runs on ("GitHub
// Actions", "Azure Pipelines"), or "" when it is not on one it can
// recognise. Self-hosted runners of those services are not hosted CI: they
// are the user's own machines.
func HostedCI(getenv func(string) string) string {
	// GitHub sets RUNNER_ENVIRONMENT to "github-hosted" or "self-hosted";
	// runners too old to set it were GitHub's own.
	if getenv("GITHUB_ACTIONS") == "true" && getenv("RUNNER_ENVIRONMENT") != "self-hosted" {
		return "GitHub Actions"
	}
	// Azure Pipelines sets TF_BUILD=True and Agent.IsSelfHosted as
	// AGENT_ISSELFHOSTED: "0" on Microsoft-hosted agents, "1" on the user's.
	if strings.EqualFold(getenv("TF_BUILD"), "true") && getenv("AGENT_ISSELFHOSTED") == "0" {
		return "Azure Pipelines"
	}
	return ""
}
