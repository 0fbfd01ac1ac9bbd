package execx

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	t.Run("output is captured and the exit code kept", func(t *testing.T) {
		r, err := Run(context.Background(), t.TempDir(), []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, 1<<20, nil)
		if err != nil || r.ExitCode != 3 || !strings.Contains(r.Output, "out") || !strings.Contains(r.Output, "err") {
			t.Fatalf("%+v %v", r, err)
		}
	})
	t.Run("output beyond the cap is dropped and marked", func(t *testing.T) {
		r, err := Run(context.Background(), t.TempDir(), []string{"/bin/sh", "-c", "yes | head -c 100000"}, 1000, nil)
		if err != nil || len(r.Output) != 1000 || !r.Truncated {
			t.Fatalf("len %d truncated %v err %v", len(r.Output), r.Truncated, err)
		}
	})
	t.Run("a command that does not exist is an error", func(t *testing.T) {
		if _, err := Run(context.Background(), t.TempDir(), []string{"no-such-command-xyz"}, 10, nil); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("cancelling kills the process group", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := Run(ctx, t.TempDir(), []string{"/bin/sh", "-c", "sleep 30 & sleep 30"}, 10, nil)
		if err == nil || time.Since(start) > 20*time.Second {
			t.Fatalf("err %v after %s", err, time.Since(start))
		}
	})
}
