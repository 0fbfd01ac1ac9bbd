package manifest

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/corehq/core/internal/fsx"
)

// MaxBytes is the most of a manifest core reads: a manifest comes from
// the repository, which may be a stranger's clone, and the largest real
// package.json files are a few hundred kilobytes.
const MaxBytes = 4 << 20

// Read is the one read of a manifest: the file rel (slash-separated)
// under root, of at most MaxBytes, never leaving root through a symlink
// (fsx.ReadUnder). A missing file is os.ErrNotExist, for callers to whom
// that means "none".
func Read(root, rel string) ([]byte, error) {
	return fsx.ReadUnder(root, rel, MaxBytes)
}

// Reader reads the manifests under one root through one os.Root, as Read
// does: what reads many (dependency inference reads every project's)
// opens the root once instead of once a file.
// Read may be called from several goroutines at once; Close only when
// none is reading.
type Reader struct {
	root string
	once sync.Once
	r    *os.Root
	err  error
}

// NewReader returns a Reader of the manifests under root; the root is
// opened at the first Read. Close it when done.
func NewReader(root string) *Reader { return &Reader{root: root} }

// Read is Read(root, rel), through the Reader's root.
func (m *Reader) Read(rel string) ([]byte, error) {
	m.once.Do(func() { m.r, m.err = os.OpenRoot(m.root) })
	if m.err != nil {
		return nil, m.err
	}
	return fsx.ReadIn(m.r, rel, MaxBytes)
}

// Sub is a Reader of the manifests in the directory rel (slash-separated)
// under the Reader's root, confined to it: what reads several manifests
// of one directory walks to it once (os.Root opens every component of a
// path again at each read). Its errors name paths from rel, not from the
// root. Close it when done.
func (m *Reader) Sub(rel string) (*Reader, error) {
	m.once.Do(func() { m.r, m.err = os.OpenRoot(m.root) })
	if m.err != nil {
		return nil, m.err
	}
	r, err := m.r.OpenRoot(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	s := &Reader{root: filepath.Join(m.root, filepath.FromSlash(rel)), r: r}
	s.once.Do(func() {})
	return s, nil
}

// Close closes the root, if it was opened; a Read after it fails.
func (m *Reader) Close() {
	m.once.Do(func() {})
	if m.r != nil {
		m.r.Close()
		m.r = nil
	}
	m.err = os.ErrClosed
}
