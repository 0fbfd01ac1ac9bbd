//go:build unix

package diff

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) of this process and of the
// children it has waited for.
func cpuTime() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	var total time.Duration
	for _, tv := range []syscall.Timeval{self.Utime, self.Stime, children.Utime, children.Stime} {
		total += time.Duration(tv.Nano())
	}
	return total
}
