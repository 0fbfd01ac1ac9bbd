package manifest

import (
	"os"

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
type Reader struct {
	root string
	r    *os.Root
	err  error
}

// NewReader returns a Reader of the manifests under root; the root is
// opened at the first Read. Close it when done.
func NewReader(root string) *Reader { return &Reader{root: root} }

// Read is Read(root, rel), through the Reader's root.
func (m *Reader) Read(rel string) ([]byte, error) {
	if m.r == nil && m.err == nil {
		m.r, m.err = os.OpenRoot(m.root)
	}
	if m.err != nil {
		return nil, m.err
	}
	return fsx.ReadIn(m.r, rel, MaxBytes)
}

// Close closes the root, if it was opened.
func (m *Reader) Close() {
	if m.r != nil {
		m.r.Close()
		m.r = nil
	}
}
