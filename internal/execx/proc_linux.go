package execx

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the command in its own process group and has the kernel
// kill it when the thread that started it ends (see the package comment).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// pinThread locks the calling goroutine to its OS thread and returns the
// unlock. Locked, the thread runs no other goroutine, so none can end it
// (a goroutine that exits while locked ends its thread) and fire the
// child's Pdeathsig early; unlocked after Wait, it goes back to the pool.
func pinThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// readStat reads /proc/PID/stat.
func readStat(pid int) (stat, bool) {
	if pid <= 0 {
		return stat{}, false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, false
	}
	return parseStat(data)
}

func parseStat(data []byte) (stat, bool) {
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return stat{}, false
	}
	fields := strings.Fields(string(data[i+1:]))
	// fields[0] is field 3 (state), fields[2] field 5 (pgrp), fields[19]
	// field 22 (starttime).
	if len(fields) < 20 || len(fields[0]) != 1 {
		return stat{}, false
	}
	pgrp, err := strconv.Atoi(fields[2])
	if err != nil {
		return stat{}, false
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return stat{}, false
	}
	return stat{state: fields[0][0], pgrp: pgrp, start: start}, true
}

// groupHasLiveMember looks through /proc for a process of group pgid that
// is not a zombie (kill(-pgid, 0) also finds zombies, which a container's
// init may never reap). When /proc cannot be listed it says yes.
func groupHasLiveMember(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}
