package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/corehq/core/internal/inputs"
)

// A cache entry is outside input: whoever can write to a remote cache (or
// into the cache directory) chooses what an entry holds. A restore writes
// nothing but the target's declared outputs, so an entry that names
// anything else (.git/hooks/pre-commit, README.md, a path outside the
// project) is refused whole, and the target builds.

// errNotConfined is matched by the error of an entry that names something
// a restore must not write.
var errNotConfined = errors.New("the cache entry restores what the target does not declare")

// confined checks that every path of the entry is one of the target's
// declared outputs, inside its project directory, and that every symlink
// in it is relative and points at one of the declared outputs (resolved
// against its own directory), so that nothing restored, nor written
// through a restored link later, lands anywhere else.
func confined(m cacheMeta, outputs []string) error {
	for _, e := range m.Outputs {
		if !safeRel(e.Path) {
			return fmt.Errorf("%w: %q leaves the project directory", errNotConfined, e.Path)
		}
		if !inputs.IsOutput(outputs, e.Path) {
			return fmt.Errorf("%w: %q is not among its outputs (%s)", errNotConfined, e.Path, strings.Join(outputs, ", "))
		}
		switch e.Type {
		case 'f', 'd':
		case 'l':
			if e.Link == "" || path.IsAbs(e.Link) || strings.Contains(e.Link, "\\") {
				return fmt.Errorf("%w: the link %q points at %q, not at an output beside it", errNotConfined, e.Path, e.Link)
			}
			to := path.Join(path.Dir(e.Path), e.Link)
			if !safeRel(to) || !inputs.IsOutput(outputs, to) {
				return fmt.Errorf("%w: the link %q points at %q, not at an output beside it", errNotConfined, e.Path, e.Link)
			}
		default:
			return fmt.Errorf("%w: %q is of an unknown type", errNotConfined, e.Path)
		}
	}
	return nil
}

// insideProject checks that the directory dir, where a restore is about
// to put an output, resolves inside the project directory projDir: a
// symlink on the way (a directory the repository checks in as a link)
// would take the write elsewhere.
func insideProject(projDir, dir string) error {
	real, err := filepath.EvalSymlinks(projDir)
	if err != nil {
		return err
	}
	// The deepest part of dir that exists is what a MkdirAll would follow.
	d := dir
	for {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	got, err := filepath.EvalSymlinks(d)
	if err != nil {
		return err
	}
	if got != real && !strings.HasPrefix(got, real+string(filepath.Separator)) {
		rel, _ := filepath.Rel(projDir, d)
		return fmt.Errorf("%w: %s is a link out of the project directory (to %s)", errNotConfined, filepath.ToSlash(rel), got)
	}
	return nil
}

// unlinkOutputs removes the symlinks among what the target's outputs match
// on disk, before it builds: a link left there (by an older core's
// restore, by hand) would otherwise take the build's writes wherever it
// points. The outputs themselves stay: incremental tools keep their state
// in them.
func unlinkOutputs(projDir string, outputs []string) {
	if len(outputs) == 0 {
		return
	}
	for _, m := range globOutputs(projDir, outputs) {
		abs := filepath.Join(projDir, filepath.FromSlash(m))
		fi, err := os.Lstat(abs)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			_ = os.Remove(abs)
			continue
		}
		if fi.IsDir() {
			_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type()&fs.ModeSymlink != 0 {
					_ = os.Remove(p)
				}
				return nil
			})
		}
	}
}
