//go:build !linux

package index

import "os"

// mapFile reads the file at path where it is not mapped here.
func mapFile(path string) (data []byte, release func(), err error) {
	data, err = os.ReadFile(path)
	return data, func() {}, err
}

func readingMapped() (restore func()) { return func() {} }
