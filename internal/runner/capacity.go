package runner

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
)

// HostedCICapacity is the pool size on a hosted CI runner: those machines
// advertise more CPUs than a job can use at once.
const HostedCICapacity = 4

// Capacity is the one rule for the size of the run pool, for the server
// and the CLI alike, and says why:
//
//   - the concurrency setting, when above 0 (CORE_CONCURRENCY sets it, above
//     the configuration files; the configuration has checked it: a whole
//     number from 0 to 1024, where 0 means "choose for me");
//   - 4 on a hosted CI runner (see the package comment for the detection);
//   - otherwise min(runtime.NumCPU(), 8).
func Capacity(concurrency int, getenv func(string) string) (n int, reason string) {
	if concurrency > 0 {
		if v, err := strconv.Atoi(strings.TrimSpace(getenv("CORE_CONCURRENCY"))); err == nil && v == concurrency {
			return concurrency, "CORE_CONCURRENCY=" + strconv.Itoa(concurrency)
		}
		return concurrency, fmt.Sprintf("concurrency = %d in the configuration", concurrency)
	}
	if ci := HostedCI(getenv); ci != "" {
		return HostedCICapacity, "hosted CI (" + ci + ")"
	}
	cpus := runtime.NumCPU()
	return max(min(cpus, 8), 1), fmt.Sprintf("min(%d CPUs, 8)", cpus)
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
