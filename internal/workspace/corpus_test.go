package workspace

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected parts of testdata/targets/invalid/*.txt")

const corpusDir = "../../testdata/targets/invalid"

// separator splits a corpus file into the targets.yaml input and the exact
// error text Parse must return for it.
const separator = "----------\n"

func splitCase(t *testing.T, path string) (input, want []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("\n"+separator))
	if i < 0 {
		t.Fatalf("%s: no line %q separating input from expected error", path, strings.TrimSpace(separator))
	}
	return data[:i+1], data[i+1+len(separator):]
}

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no corpus files in %s", corpusDir)
	}
	return files
}

// TestInvalidCorpus runs every file of the corpus through Parse. Adding a
// case is adding a file; run with -update to fill in its expected error,
// then read it and make sure it teaches the fix.
func TestInvalidCorpus(t *testing.T) {
	for _, path := range corpusFiles(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			input, want := splitCase(t, path)
			_, err := Parse(FileName, input)
			if err == nil {
				t.Fatalf("Parse accepted an invalid file:\n%s", input)
			}
			var perr *Error
			if !errors.As(err, &perr) {
				t.Fatalf("error is %T, want *Error: %v", err, err)
			}
			got := err.Error() + "\n"
			if *update {
				out := append(append(append([]byte{}, input...), separator...), got...)
				if err := os.WriteFile(path, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != string(want) {
				t.Errorf("error text differs (run with -update to accept)\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}
