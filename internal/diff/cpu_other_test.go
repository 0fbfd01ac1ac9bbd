//go:build !unix

package diff

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
