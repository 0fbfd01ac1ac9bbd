// Package testbed is what core's tests, its screenshot tool
// (scripts/screenshots) and its explorer benchmark share to drive the real
// binary, a real browser and real git: a clean copy of a workspace, an
// environment no user configuration leaks into, the flags headless
// Chromium needs on these machines, and a temporary git repository
// (GitRepo). Nothing in core itself imports it.
package testbed

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/chromedp/chromedp"

	"github.com/corehq/core/internal/ignore"
)

// CopyWorkspace copies the workspace src (testdata/demo, say) to dst,
// without the cache directory a developer's run may have left in it.
func CopyWorkspace(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == ignore.DefaultCacheDir {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// IsolatedEnv is this process's environment without any CORE_ variable,
// with HOME, XDG_CONFIG_HOME and XDG_STATE_HOME under home (so no user
// configuration or trust record is read, and none is written), plus extra
// (which wins over them: os/exec keeps the last of a name).
func IsolatedEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "CORE_"),
			strings.HasPrefix(kv, "HOME="),
			strings.HasPrefix(kv, "XDG_CONFIG_HOME="),
			strings.HasPrefix(kv, "XDG_STATE_HOME="):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"))
	return append(env, extra...)
}

// ChromiumOptions start the Chromium at path headless, as root, with a
// fresh profile in profileDir, software WebGL and a 1280x800 window, and
// without the background connections this machine's closed network refuses.
func ChromiumOptions(path, profileDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(profileDir),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("enable-unsafe-swiftshader", true), // WebGL in software
		chromedp.Flag("allow-file-access-from-files", false),
		chromedp.WindowSize(1280, 800),
	}
}

// Buffer is a bytes.Buffer that a process writes while its reader reads
// it: a server's stdout or stderr.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
