package execx

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestExec(t *testing.T) {
	t.Run("output is captured and the exit code kept", func(t *testing.T) {
		c := &Capture{}
		r := Exec(context.Background(), []string{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, t.TempDir(), nil, c)
		out, _ := c.Result()
		if r.ExitCode != 3 || !strings.Contains(out, "out") || !strings.Contains(out, "err") {
			t.Fatalf("%+v %q", r, out)
		}
	})
	t.Run("a command that does not exist says so", func(t *testing.T) {
		r := Exec(context.Background(), []string{"no-such-command-xyz"}, t.TempDir(), nil, &Capture{})
		if r.Err == "" || r.ExitCode != -1 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("cancelling ends the process group", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		start := time.Now()
		r := Exec(ctx, []string{"/bin/sh", "-c", "sleep 30 & sleep 30"}, t.TempDir(), nil, &Capture{})
		if !r.Interrupted || time.Since(start) > 25*time.Second {
			t.Fatalf("%+v after %s", r, time.Since(start))
		}
	})
}

func TestCaptureKeepsHeadAndTail(t *testing.T) {
	c := &Capture{Max: 10}
	_, _ = c.Write([]byte("0123456789abcdefghij"))
	out, truncated := c.Result()
	if !truncated || !strings.HasPrefix(out, "01234") || !strings.HasSuffix(out, "fghij") || !strings.Contains(out, "10 bytes of output left out") {
		t.Fatalf("%q %v", out, truncated)
	}
}
