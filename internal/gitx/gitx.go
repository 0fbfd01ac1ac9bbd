// Package gitx runs the git command line the one way core needs: in a
// directory, with an environment that never prompts, takes no optional
// locks, speaks the C locale and does not quote paths, and with none of the
// programs a repository's configuration can name (see Command). Every git
// process core starts goes through here (layers_test.go holds it). Callers
// decide what an exit code means.
package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Result is what one git command printed and how it exited.
type Result struct {
	Stdout string // as printed (-z output keeps its NULs and spaces)
	Stderr string // trimmed
	Exit   int
}

// Text is Stdout without surrounding white space.
func (r Result) Text() string { return strings.TrimSpace(r.Stdout) }

// ErrNotInstalled says git is not on PATH.
var ErrNotInstalled = errors.New("git is not installed or not on PATH: install git")

// Run runs `git -C dir args...`. The error is for a git that could not run
// (not installed, or ctx ended); a non-zero exit is in Result.Exit.
func Run(ctx context.Context, dir string, args ...string) (Result, error) {
	return Exec(ctx, Command(ctx, dir, args...))
}

// Command is `git -C dir args...` with core's environment, for a caller
// that needs more than Run gives: a standard input, a streamed output, or
// more environment (cmd.Env is set; append to it). Run it with Exec.
//
// A repository's configuration may name programs for git to run: an
// fsmonitor hook, hooks, filter drivers (clean, smudge, process), merge
// drivers, external diff and textconv commands, a pager, a signature
// verifier. A repository core reads may come from anyone, so none of them
// runs: see neutral and drivers. Git's own content conversions (line
// endings, working-tree encodings) still apply.
func Command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	sub := subcommand(args)
	full := make([]string, 0, len(neutral)+len(args)+8)
	full = append(full, "--no-pager", "-C", dir)
	full = append(full, neutral...)
	var overrides []string
	var err error
	if sub < 0 || !noDrivers[args[sub]] {
		overrides, err = drivers(ctx, dir)
		full = append(full, overrides...)
	}
	if sub >= 0 && diffing[args[sub]] {
		full = append(full, args[:sub+1]...)
		full = append(full, "--no-ext-diff", "--no-textconv")
		full = append(full, args[sub+1:]...)
	} else {
		full = append(full, args...)
	}
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", emptyEnv+"=", falseEnv+"=false")
	if err != nil {
		// Fail closed: a command that might run a repository's driver
		// does not start (Start returns cmd.Err).
		cmd.Err = err
	}
	return cmd
}

// Exec runs a Command made with ctx the way Run does. Standard output the
// caller did not direct elsewhere is captured into the Result.
func Exec(ctx context.Context, cmd *exec.Cmd) (Result, error) {
	var stdout, stderr bytes.Buffer
	if cmd.Stdout == nil {
		cmd.Stdout = &stdout
	}
	cmd.Stderr = &stderr
	err := cmd.Run()
	res := Result{Stdout: stdout.String(), Stderr: strings.TrimSpace(stderr.String())}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return res, nil
	case errors.As(err, &exit):
		res.Exit = exit.ExitCode()
		return res, nil
	case errors.Is(err, exec.ErrNotFound):
		return res, ErrNotInstalled
	}
	return res, fmt.Errorf("run git: %w", err)
}

// Output runs `git -C dir args...` and returns its standard output; a
// non-zero exit is an error naming the command and carrying git's message.
func Output(ctx context.Context, dir string, args ...string) (string, error) {
	res, err := Run(ctx, dir, args...)
	if err != nil {
		return "", err
	}
	if res.Exit != 0 {
		return "", res.Describe(args...)
	}
	return res.Stdout, nil
}

// Describe turns a failed command into an error naming it and git's
// message.
func (r Result) Describe(args ...string) error {
	msg := r.Stderr
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", r.Exit)
	}
	return fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
}
