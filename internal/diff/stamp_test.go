package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestAppendStatKeepsTheStampsFormat: a stamp's line is what it was when
// it was written with fmt, so ETags survive an upgrade.
func TestAppendStatKeepsTheStampsFormat(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, []byte("hello"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "l")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, link, dir, filepath.Join(dir, "absent")} {
		st, err := os.Lstat(p)
		want := fmt.Sprintf("%s\x00absent\n", "name")
		if err == nil {
			want = fmt.Sprintf("%s\x00%d %o %d\n", "name", st.Size(), st.Mode(), st.ModTime().UnixNano())
		}
		if got := string(appendStat(nil, "name", st, err)); got != want {
			t.Errorf("%s: got %q, want %q", p, got, want)
		}
	}
}
