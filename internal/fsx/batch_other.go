//go:build !linux

package fsx

func syncFiles(files []batchFile) error { return fsyncEach(files) }
