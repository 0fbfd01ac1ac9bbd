package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/corehq/core/internal/execx"
)

// A target's toolchain: the version command it names (toolchain: [go,
// version]) runs once per run and project directory, before the target's
// key is computed, and its output is part of the key. So two machines with
// different compilers never share a result, and nothing else of the
// machine (paths, the user, the rest of the environment) is in the key.
// It runs in the target's own environment (targetenv), so that it reports
// the toolchain the target will find (GOTOOLCHAIN, PATH).

// toolchainTimeout bounds a version command.
const toolchainTimeout = 30 * time.Second

// toolchainCap bounds the output of a version command that is hashed.
const toolchainCap = 64 << 10

// toolchains memoizes the version commands of one run.
type toolchains struct {
	mu sync.Mutex
	m  map[string]*toolchainRun
}

type toolchainRun struct {
	once sync.Once
	v    ToolchainPart
	err  error
}

// ToolchainPart is the toolchain part of a key: the command, the first
// line of what it printed, and the hash of all of it.
type ToolchainPart struct {
	Argv    []string `json:"argv"`
	Version string   `json:"version"`
	Hash    string   `json:"sha256"`
}

func newToolchains() *toolchains { return &toolchains{m: map[string]*toolchainRun{}} }

// version runs argv in dir with env (once per run for each) and returns
// what it printed.
func (tc *toolchains) version(ctx context.Context, dir string, argv, env []string) (*ToolchainPart, error) {
	if len(argv) == 0 {
		return nil, nil
	}
	id := dir + "\x00" + strings.Join(argv, "\x00") + "\x00\x00" + strings.Join(env, "\x00")
	tc.mu.Lock()
	run, ok := tc.m[id]
	if !ok {
		run = &toolchainRun{}
		tc.m[id] = run
	}
	tc.mu.Unlock()
	run.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, toolchainTimeout)
		defer cancel()
		c := &execx.Capture{Max: toolchainCap}
		er := execx.Exec(ctx, argv, dir, env, c)
		out, _ := c.Result()
		first, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		if len(first) > 200 {
			first = first[:200]
		}
		switch {
		case er.ExitCode > 0:
			run.err = fmt.Errorf("toolchain %s exited %d: %s", strings.Join(argv, " "), er.ExitCode, first)
		case er.Err != "":
			run.err = fmt.Errorf("toolchain %s: %s", strings.Join(argv, " "), er.Err)
		default:
			sum := sha256.Sum256([]byte(out))
			run.v = ToolchainPart{Argv: argv, Version: first, Hash: hex.EncodeToString(sum[:])}
		}
	})
	if run.err != nil {
		return nil, run.err
	}
	v := run.v
	return &v, nil
}
