package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"

	"github.com/corehq/core/internal/testbed"
)

// options are the flags every scenario shares.
type options struct {
	core, root, jsonOut string
	keep                bool
}

// env is what a scenario runs in: the checkout, the core binary, a
// temporary directory, and what to undo at the end.
type env struct {
	root string // the checkout (holds go.mod, testdata/demo)
	core string // the binary under test
	tmp  string // removed at the end unless -keep
	keep bool

	mu       sync.Mutex
	cleanups []func()
	closed   bool
}

func newEnv(o options) (*env, error) {
	root := o.root
	if root == "" {
		r, err := findModuleRoot()
		if err != nil {
			return nil, err
		}
		root = r
	}
	tmp, err := os.MkdirTemp("", "core-reliability-")
	if err != nil {
		return nil, err
	}
	e := &env{root: root, tmp: tmp, keep: o.keep}
	if err := raiseNoFile(); err != nil {
		fmt.Fprintf(os.Stderr, "reliability: cannot raise RLIMIT_NOFILE: %v\n", err)
	}
	e.core = o.core
	if e.core == "" {
		e.core = filepath.Join(tmp, "core")
		build := exec.Command("go", "build", "-o", e.core, "./cmd/core")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			e.close()
			return nil, fmt.Errorf("go build ./cmd/core: %v\n%s", err, out)
		}
	} else if abs, err := filepath.Abs(e.core); err == nil {
		e.core = abs
	}
	return e, nil
}

// raiseNoFile raises this process's soft limit of open files to the hard
// limit. Calling Setrlimit ourselves also makes the child processes (the
// server) inherit the raised limit: Go restores the limit it found at
// start-up in children only when the program never set it.
func raiseNoFile() error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	l.Cur = l.Max
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l)
}

// noFileLimit is the soft limit of open files.
func noFileLimit() uint64 {
	var l syscall.Rlimit
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l)
	return l.Cur
}

// atClose registers f to run at close, last registered first.
func (e *env) atClose(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cleanups = append(e.cleanups, f)
}

// close runs the cleanups once and removes the temporary directory.
func (e *env) close() {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	e.closed = true
	fs := e.cleanups
	e.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
	if e.keep {
		fmt.Fprintf(os.Stderr, "reliability: kept %s\n", e.tmp)
		return
	}
	_ = os.RemoveAll(e.tmp)
}

// workspace copies testdata/demo to a fresh directory under tmp.
func (e *env) workspace(name string) (string, error) {
	dst := filepath.Join(e.tmp, name)
	if err := testbed.CopyWorkspace(filepath.Join(e.root, "testdata", "demo"), dst); err != nil {
		return "", fmt.Errorf("copy the demo workspace: %w", err)
	}
	return dst, nil
}

// home is a fresh HOME for the processes of one workspace.
func (e *env) home(name string) string {
	h := filepath.Join(e.tmp, name+"-home")
	_ = os.MkdirAll(h, 0o755)
	return h
}

// findModuleRoot walks up from the working directory to the go.mod of
// github.com/corehq/core.
func findModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	re := regexp.MustCompile(`(?m)^module\s+github\.com/corehq/core\s*$`)
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && re.Match(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod of github.com/corehq/core above the working directory: run from the checkout or give -root")
		}
		dir = parent
	}
}
