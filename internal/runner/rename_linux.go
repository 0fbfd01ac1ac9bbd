package runner

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// exchange swaps src and dst in one step (renameat2 RENAME_EXCHANGE); it
// fails when dst does not exist or the file system cannot.
func exchange(src, dst string) error {
	return unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_EXCHANGE)
}

// sameDevice reports whether a and b are on one file system, so that a
// rename can move from one to the other.
func sameDevice(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return false
	}
	sa, ok1 := fa.Sys().(*syscall.Stat_t)
	sb, ok2 := fb.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev
}
