//go:build !linux

package execx

import "syscall"

// sysProcAttr puts the command in its own process group. Only Linux has a
// parent-death signal.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// pinThread does nothing: without Pdeathsig the starting thread does not
// matter.
func pinThread() func() { return func() {} }

// readStat finds nothing: only Linux has /proc here.
func readStat(pid int) (stat, bool) { return stat{}, false }

// groupHasLiveMember is kill(-pgid, 0)'s answer, which GroupAlive has
// already had: zombies cannot be told apart.
func groupHasLiveMember(pgid int) bool { return true }
