package execx

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// liveness is how long a test waits for something the kernel does at once;
// generous, for a loaded machine.
const liveness = 60 * time.Second

// eventually polls cond until it holds or liveness passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveness)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, liveness)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startGroup starts argv in a process group of its own, reaped in the
// background, and returns its pid.
func startGroup(t *testing.T, argv ...string) int {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }()
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	return pid
}

func TestExecEndsTheGroupOnEveryWayOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds group members through /proc")
	}
	for _, tc := range []struct {
		name  string
		argv  []string
		panic bool // started panics once the group has two members
	}{
		{
			name: "a background process of a command that exits is killed with it",
			argv: []string{"/bin/sh", "-c", "sleep 300 >/dev/null 2>&1 & exit 0"},
		},
		{
			name:  "a panic while the command runs kills its group",
			argv:  []string{"/bin/sh", "-c", "sleep 300 & wait"},
			panic: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pgid := 0
			func() {
				defer func() {
					if p := recover(); (p != nil) != tc.panic {
						t.Errorf("recovered %v", p)
					}
				}()
				ExecStarted(context.Background(), tc.argv, t.TempDir(), nil, &Capture{}, func(pid int) {
					pgid = pid
					if tc.panic {
						eventually(t, "the background sleep starts", func() bool { return members(pgid) >= 2 })
						panic("boom")
					}
				})
			}()
			if pgid == 0 {
				t.Fatal("started was not called")
			}
			t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
			eventually(t, "process group "+strconv.Itoa(pgid)+" is gone", func() bool { return !GroupAlive(pgid, 0) })
		})
	}
}

func TestExecStartedHearsTheGroupLeader(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	var pgrp, pid int
	r := ExecStarted(context.Background(), []string{"/bin/sh", "-c", "exit 0"}, t.TempDir(), nil, &Capture{}, func(p int) {
		pid = p
		if st, ok := readStat(p); ok {
			pgrp = st.pgrp
		}
	})
	if r.ExitCode != 0 || pid == 0 || pgrp != pid {
		t.Fatalf("result %+v, pid %d in group %d: want the leader of its own group", r, pid, pgrp)
	}
}

func TestGroupAlive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	live := startGroup(t, "sleep", "300")
	eventually(t, "sleep starts", func() bool { return StartTime(live) != 0 })
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		pgid  int
		start uint64
		want  bool
	}{
		{"a group with a live member is alive", live, StartTime(live), true},
		{"a group whose start time is not known is taken by its pid", live, 0, true},
		{"a pid that names a process started at another time is another group", live, StartTime(live) + 1, false},
		{"a group that is gone is not alive", dead.Process.Pid, 0, false},
		{"no pid, no group", 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := GroupAlive(tc.pgid, tc.start); got != tc.want {
				t.Errorf("GroupAlive(%d, %d) = %v", tc.pgid, tc.start, got)
			}
		})
	}
}

func TestEndGroupEndsAGroupThatIgnoresSIGTERM(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	// The trap is inherited: sleep ignores SIGTERM too.
	pgid := startGroup(t, "/bin/sh", "-c", `trap "" TERM; sleep 300 & wait`)
	eventually(t, "the group's sleep starts", func() bool { return members(pgid) >= 2 })
	if err := EndGroup(context.Background(), pgid, StartTime(pgid)); err != nil {
		t.Fatal(err)
	}
	if GroupAlive(pgid, 0) {
		t.Fatal("EndGroup returned with the group alive")
	}
}

// members counts the live (not zombie) processes of group pgid.
func members(pgid int) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok && st.pgrp == pgid && st.state != 'Z' {
			n++
		}
	}
	return n
}
