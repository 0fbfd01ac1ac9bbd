package manifest

import (
	"os"
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

// Close closes the root, if it was opened; a Read after it fails.
func (m *Reader) Close() {
	m.once.Do(func() {})
	if m.r != nil {
		m.r.Close()
		m.r = nil
	}
	m.err = os.ErrClosed
}
