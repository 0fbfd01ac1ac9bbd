package state

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/cachedir"
	"github.com/corehq/core/internal/fsx"
)

func sample(pid int) State {
	return State{
		Address:    "127.0.0.1:7391",
		BaseURL:    "http://127.0.0.1:7391",
		PID:        pid,
		StartedAt:  time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
		Workspace:  "/src/mono",
		Version:    "v0.1.0",
		AdminToken: "core_admin_" + strings.Repeat("x", 43),
	}
}

func TestWriteRead(t *testing.T) {
	t.Parallel()

	t.Run("a_written_state_reads_back", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		want := sample(os.Getpid())
		if err := Write(dir, want); err != nil {
			t.Fatal(err)
		}
		got, err := Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("Read = %+v, want %+v", got, want)
		}
	})

	t.Run("the_file_is_0600", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := Write(dir, sample(1)); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{Path(dir), cachedir.ServerStateLock(dir)} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Fatalf("%s mode = %v, want 0600", p, fi.Mode().Perm())
			}
		}
	})

	t.Run("json_fields_are_lower_snake_case", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := Write(dir, sample(1)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(Path(dir))
		for _, k := range []string{"address", "base_url", "pid", "started_at", "workspace", "version", "admin_token"} {
			if !strings.Contains(string(b), `"`+k+`"`) {
				t.Errorf("%q missing from %s", k, b)
			}
		}
	})

	t.Run("a_missing_file_is_not_running", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		_, err := Read(dir)
		if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), Path(dir)) {
			t.Fatalf("Read = %v, want ErrNotRunning naming the file", err)
		}
	})

	for _, tc := range []struct{ name, content string }{
		{"invalid_json", "{"},
		{"an_empty_file", ""},
		{"a_missing_pid", `{"address":"127.0.0.1:1"}`},
		{"a_wrong_type", `{"pid":"one"}`},
	} {
		t.Run(tc.name+"_is_corrupt_naming_the_file", func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(Path(dir), []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Read(dir)
			if err == nil || errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), Path(dir)) {
				t.Fatalf("Read = %v, want a corruption error naming the file", err)
			}
		})
	}
}

func TestRemove(t *testing.T) {
	t.Parallel()

	t.Run("remove_deletes_the_file_naming_its_pid", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := Write(dir, sample(1234)); err != nil {
			t.Fatal(err)
		}
		if err := Remove(dir, 1234); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(dir); !errors.Is(err, ErrNotRunning) {
			t.Fatalf("after Remove: %v", err)
		}
	})

	t.Run("remove_leaves_another_pids_file_alone", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		newer := sample(5678)
		if err := Write(dir, newer); err != nil {
			t.Fatal(err)
		}
		if err := Remove(dir, 1234); err != nil {
			t.Fatal(err)
		}
		got, err := Read(dir)
		if err != nil || got != newer {
			t.Fatalf("newer server's file changed: %+v, %v", got, err)
		}
	})

	t.Run("remove_without_a_file_is_fine", func(t *testing.T) {
		t.Parallel()
		if err := Remove(t.TempDir(), 1); err != nil {
			t.Fatal(err)
		}
		if err := Remove(filepath.Join(t.TempDir(), "absent"), 1); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("remove_reports_and_keeps_a_corrupt_file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.WriteFile(Path(dir), []byte("{"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := Remove(dir, 1); err == nil {
			t.Fatal("no error for a corrupt file")
		}
		if _, err := os.Stat(Path(dir)); err != nil {
			t.Fatal("corrupt file removed")
		}
	})
}

func TestProcessAlive(t *testing.T) {
	t.Parallel()

	t.Run("this_process_is_alive", func(t *testing.T) {
		t.Parallel()
		if !sample(os.Getpid()).ProcessAlive() {
			t.Fatal("own pid reported dead")
		}
	})

	t.Run("a_stale_pid_is_detected", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		// Run waited for (reaped) the child, so its pid names no process.
		if sample(cmd.Process.Pid).ProcessAlive() {
			t.Fatalf("exited pid %d reported alive", cmd.Process.Pid)
		}
	})

	t.Run("no_pid_is_not_alive", func(t *testing.T) {
		t.Parallel()
		for _, pid := range []int{0, -1} {
			if sample(pid).ProcessAlive() {
				t.Fatalf("pid %d reported alive", pid)
			}
		}
	})
}

func TestRunningMeansTheServerLockIsHeld(t *testing.T) {
	dir := t.TempDir()
	if Running(dir) {
		t.Fatal("running with nobody holding the lock")
	}
	l, err := fsx.TryLockFile(cachedir.ServerLock(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !Running(dir) {
		t.Fatal("not running while the lock is held")
	}
	_ = l.Unlock()
	if Running(dir) {
		t.Fatal("still running after the lock was released")
	}
}

// TestAnExitedProcessNotYetReapedIsNotAlive: signal 0 reaches a zombie,
// and `core server stop` waited out its deadline on a server that had ended
// in the background of a shell that had not reaped it yet.
func TestAnExitedProcessNotYetReapedIsNotAlive(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc on this system")
	}
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	st := State{PID: cmd.Process.Pid}
	// Until the child has exited it is alive; after, only a zombie.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if data, _ := os.ReadFile("/proc/" + strconv.Itoa(st.PID) + "/stat"); bytes.Contains(data, []byte(") Z ")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not exit")
		}
	}
	if st.ProcessAlive() {
		t.Error("an exited child that waits to be reaped counts as alive")
	}
	if !(State{PID: os.Getpid()}).ProcessAlive() {
		t.Error("this process does not count as alive")
	}
}
