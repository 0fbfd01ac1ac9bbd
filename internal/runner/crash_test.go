package runner

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corehq/core/internal/workspace"
)

// crashHelperEnv, set to a workspace root, turns the test binary into the
// core process that TestAKilledCoreLeavesNoTargetRunningTwice kills: it
// runs app:slow there.
const crashHelperEnv = "CORE_RUNNER_TEST_CRASH_HELPER"

func TestMain(m *testing.M) {
	if root := os.Getenv(crashHelperEnv); root != "" {
		os.Exit(crashHelper(root))
	}
	os.Exit(m.Run())
}

func crashHelper(root string) int {
	ws, err := workspace.Load(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r := New(Options{Root: root, CacheDir: filepath.Join(root, ".core"), Capacity: 1})
	if _, err := r.Run(context.Background(), ws.WithImports(nil), []string{"app:slow"}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

// liveness bounds a wait for something the kernel does at once; generous,
// for a loaded machine.
const liveness = 60 * time.Second

// eventually polls cond until it holds, or fails the test after liveness.
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

// groupMembers lists the live (not zombie) processes of process group
// pgid, from /proc.
func groupMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(data), ')')
		f := strings.Fields(string(data[i+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// sleeps reports whether one of pids is running sleep (not a shell about to
// run it, nor the shell's $(cat ...) that comes before).
func sleeps(pids []int) bool {
	for _, pid := range pids {
		if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); strings.TrimSpace(string(comm)) == "sleep" {
			return true
		}
	}
	return false
}

// pidGone reports whether pid names no process, or a zombie.
func pidGone(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || strings.HasPrefix(strings.TrimSpace(string(data[i+1:])), "Z")
}

// crashYAML's target ignores SIGTERM (its sleep too: the trap is
// inherited) and logs its start and its end with its pid, which is its
// process group.
const crashYAML = `projects:
  app:
    path: app
    targets:
      slow:
        run: [/bin/sh, -c, "trap '' TERM; echo start $$ >> log; sleep $(cat nap); echo end $$ >> log"]
        inputs: [nap]
`

// TestAKilledCoreLeavesNoTargetRunningTwice kills (SIGKILL) a core process
// in the middle of a target and runs the target again.
func TestAKilledCoreLeavesNoTargetRunningTwice(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Pdeathsig and /proc are Linux's")
	}
	f := newFixture(t, crashYAML, map[string]string{"app/nap": "300\n"})
	logLines := func() []string {
		data, _ := f.read("app/log")
		return strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
	}

	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), crashHelperEnv+"="+f.root)
	out, err := os.Create(filepath.Join(t.TempDir(), "helper.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = out.Close() }()
	helper.Stdout, helper.Stderr = out, out
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = helper.Process.Kill()
			_ = helper.Wait()
		}
	}()

	// The first run's shell: its pid is its process group.
	first := 0
	t.Cleanup(func() {
		if first > 0 {
			_ = syscall.Kill(-first, syscall.SIGKILL)
		}
	})
	eventually(t, "the helper starts app:slow and its journal records the command", func() bool {
		if l := logLines(); len(l) > 0 {
			first, _ = strconv.Atoi(strings.TrimPrefix(l[0], "start_"))
		}
		js, _ := ListJournals(f.cacheDir(), 0, "app:slow")
		return first > 0 && len(js) == 1 && js[0].ChildPID == first
	})
	eventually(t, "the first run's sleep starts", func() bool { return sleeps(groupMembers(first)) })

	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait() // reaped: its pid names no process any more
	killed = true

	t.Run("the target's shell dies with core", func(t *testing.T) {
		eventually(t, fmt.Sprintf("the shell (pid %d) of a killed core ends", first), func() bool { return pidGone(first) })
	})
	t.Run("its sleep, which has no parent-death signal, outlives core in the target's group", func(t *testing.T) {
		// What the next run has to deal with.
		if m := groupMembers(first); !sleeps(m) {
			t.Fatalf("process group %d holds no sleep: %v", first, m)
		}
	})
	js, _ := ListJournals(f.cacheDir(), 0, "app:slow")
	if len(js) != 1 {
		t.Fatalf("%d journals, want 1", len(js))
	}
	crashed := js[0].ID
	t.Run("the listing reports the crashed run as interrupted at once", func(t *testing.T) {
		// No server has started since: nothing has called RecoverInterrupted.
		if js[0].Status != StateInterrupted {
			t.Errorf("ListJournals: status %s", js[0].Status)
		}
		if j, err := ReadJournal(f.cacheDir(), crashed); err != nil || j.Status != StateInterrupted {
			t.Errorf("ReadJournal: %+v, %v", j, err)
		}
	})

	t.Run("the next run never runs beside what is left of the crashed one", func(t *testing.T) {
		f.write("app/nap", "0.1\n")
		var beside []int
		onEvent := func(e Event) {
			if e.Target == "app:slow" && e.State == StateRunning {
				beside = groupMembers(first)
			}
		}
		res, err := f.runner(Options{Observer: Events(onEvent)}).Run(context.Background(), f.ws(), []string{"app:slow"})
		if err != nil {
			t.Fatal(err)
		}
		if got := byTarget(res)["app:slow"]; got.Status != StateSucceeded {
			t.Fatalf("the next run: %+v", got)
		}
		if len(beside) > 0 {
			t.Errorf("when the next run started its command, the crashed run's process group %d still had processes %v: the two ran side by side", first, beside)
		}
		if left := groupMembers(first); len(left) > 0 {
			t.Errorf("after the next run, the crashed run's process group %d still has processes %v", first, left)
		}
		// The first run never ends, neither before the second nor after.
		l := logLines()
		if len(l) != 3 || l[0] != "start_"+strconv.Itoa(first) || !strings.HasPrefix(l[1], "start_") || l[2] != "end_"+strings.TrimPrefix(l[1], "start_") {
			t.Errorf("log %q, want the crashed run's start, then the next run's start and end", l)
		}
	})

	t.Run("the crashed run's journal says its group was ended", func(t *testing.T) {
		j, err := ReadJournal(f.cacheDir(), crashed)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != StateInterrupted || j.ExitCode != -1 || !strings.Contains(j.Err, fmt.Sprintf("process group %d", first)) {
			t.Errorf("journal %+v", j)
		}
	})
}

// TestTheNextRunSettlesWhatACrashedRunLeft plays the crashed run's part by
// hand: a journal of a dead core process, its mark, and maybe a group.
func TestTheNextRunSettlesWhatACrashedRunLeft(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := gone.Process.Pid
	for _, tc := range []struct {
		name       string
		group      bool   // the mark names a live group
		startSkew  uint64 // added to the group's start time in the mark
		wantEnded  bool   // the group is ended
		wantErrHas string
	}{
		{"an orphaned group of a dead core is ended before the target runs", true, 0, true, "was ended before the next run"},
		{"a group whose pid now names another process is left alone", true, 1, false, "ended before it finished"},
		{"a mark whose group is gone settles the journal", false, 0, false, "ended before it finished"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, `projects:
  app:
    path: app
    targets:
      t: {run: [/bin/sh, -c, "echo ran >> log"]}
`, map[string]string{"app/x": "x"})
			pgid, start := deadPID, uint64(0)
			if tc.group {
				cmd := exec.Command("sleep", "300")
				cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				go func() { _ = cmd.Wait() }()
				pgid = cmd.Process.Pid
				t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
				eventually(t, "sleep starts", func() bool { return len(groupMembers(pgid)) == 1 })
				data, _ := os.ReadFile("/proc/" + strconv.Itoa(pgid) + "/stat")
				i := strings.LastIndexByte(string(data), ')')
				start, _ = strconv.ParseUint(strings.Fields(string(data[i+1:]))[19], 10, 64)
			}
			now := time.Now()
			j := Journal{ID: newRunID(now), Target: "app:t", Status: StateRunning, Start: now,
				PID: deadPID, PIDStart: 1, ChildPID: pgid, ChildStart: start + tc.startSkew}
			writeTestJournal(t, f.cacheDir(), j)
			if err := os.MkdirAll(locksDir(f.cacheDir()), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := writeMark(f.cacheDir(), "app:t", runMark{RunID: j.ID, PID: j.PID, PIDStart: j.PIDStart, ChildPID: j.ChildPID, ChildStart: j.ChildStart}); err != nil {
				t.Fatal(err)
			}

			if got := f.run("app:t")["app:t"]; got.Status != StateSucceeded {
				t.Fatalf("the target: %+v", got)
			}
			if tc.group {
				if ended := len(groupMembers(pgid)) == 0; ended != tc.wantEnded {
					t.Errorf("group ended: %v, want %v", ended, tc.wantEnded)
				}
			}
			got, err := ReadJournal(f.cacheDir(), j.ID)
			if err != nil || got.Status != StateInterrupted || !strings.Contains(got.Err, tc.wantErrHas) {
				t.Errorf("the crashed run's journal: %+v, %v; want interrupted, saying %q", got, err, tc.wantErrHas)
			}
			if _, err := os.Stat(markPath(f.cacheDir(), "app:t")); err == nil {
				t.Error("the mark is still there")
			}
			if log, _ := f.read("app/log"); log != "ran\n" {
				t.Errorf("log %q", log)
			}
		})
	}
}

// A run that ends normally leaves no mark, and its journal keeps the pid
// its command had.
func TestAFinishedRunLeavesNoMark(t *testing.T) {
	f := newFixture(t, `projects:
  app:
    path: app
    targets:
      t: {run: [/bin/sh, -c, "echo $$ > pid"]}
`, map[string]string{"app/x": "x"})
	got := f.run("app:t")["app:t"]
	if got.Status != StateSucceeded {
		t.Fatalf("%+v", got)
	}
	if _, err := os.Stat(markPath(f.cacheDir(), "app:t")); err == nil {
		t.Error("a mark is left")
	}
	j, err := ReadJournal(f.cacheDir(), got.RunID)
	pid, _ := f.read("app/pid")
	if err != nil || strconv.Itoa(j.ChildPID) != strings.TrimSpace(pid) {
		t.Errorf("journal child pid %d, the command's %q (%v)", j.ChildPID, pid, err)
	}
	entries, _ := os.ReadDir(locksDir(f.cacheDir()))
	if names := dirNames(entries); slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, ".run") }) {
		t.Errorf("locks: %v", names)
	}
}

func dirNames(es []os.DirEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
