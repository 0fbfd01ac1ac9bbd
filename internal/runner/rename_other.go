//go:build !linux

package runner

import "errors"

// exchange is Linux's renameat2; elsewhere a restore renames in two steps.
func exchange(src, dst string) error { return errors.ErrUnsupported }

// sameDevice is not known here: restores extract in place.
func sameDevice(a, b string) bool { return false }
