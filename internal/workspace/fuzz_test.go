package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes Parse panic, and that every failure
// is an *Error whose problems all carry a line.
func FuzzParse(f *testing.F) {
	for _, path := range corpusFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if i := bytes.Index(data, []byte("\n"+separator)); i >= 0 {
			data = data[:i+1]
		}
		f.Add(data)
	}
	demo, err := os.ReadFile(filepath.Join(demoDir, FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(demo)
	f.Fuzz(func(t *testing.T, data []byte) {
		ws, err := Parse(FileName, data)
		if err == nil {
			if ws == nil {
				t.Fatal("nil workspace without an error")
			}
			return
		}
		var perr *Error
		if !errors.As(err, &perr) {
			t.Fatalf("error is %T, want *Error: %v", err, err)
		}
		if len(perr.Problems) == 0 {
			t.Fatal("*Error without problems")
		}
		for _, p := range perr.Problems {
			if p.Line <= 0 {
				t.Fatalf("problem without a line: %+v", p)
			}
		}
	})
}
