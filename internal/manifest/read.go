package manifest

import "github.com/corehq/core/internal/fsx"

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
