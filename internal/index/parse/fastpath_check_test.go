package parse

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// fastCase is a fast path and the full parser it is held to, for the
// checks the Python, JavaScript and declaration-file paths share (Go's
// fast path says only whether it took a file, and has its own).
type fastCase[D ~string] struct {
	full string // the full parser's name, for messages
	fast func(path string, src []byte) (FileRecord, D)
	tree func(path string, src []byte) FileRecord
	path string // the path both parse a snippet under
}

var (
	pyCase  = fastCase[pyDecline]{"tree-sitter", parsePythonFast, parsePythonTree, "f.py"}
	jsCase  = fastCase[jsDecline]{"tree-sitter", parseJavaScriptFast, parseJavaScriptTree, "f.js"}
	dtsCase = fastCase[jsDecline]{"tree-sitter", parseDeclarationsFast, parseTypeScriptTree, "f.d.ts"}
)

// check fails t if the fast path accepts src and its record differs from
// the full parser's, or the full parser finds an error in it.
func (c fastCase[D]) check(t testing.TB, name string, src []byte) {
	t.Helper()
	got, why := c.fast(c.path, src)
	if why != "" {
		return
	}
	want := c.tree(c.path, src)
	if want.Diag != "" {
		t.Errorf("%s: the fast path accepted a file %s rejects: %s", name, c.full, want.Diag)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: the fast path's record differs from %s's:\n%s", name, c.full, fastRecordDiff(got, want))
	}
}

// agreesOnCorpus checks each file (each tenth again with CRLF line
// endings), logs how many took the fast path and why the others did not,
// and fails if fewer than three quarters of the files parsed did. skip
// names the files the index does not parse (nil: none).
func (c fastCase[D]) agreesOnCorpus(t *testing.T, files []string, skip func(src []byte) bool) {
	t.Helper()
	fast, bytesIn, bytesFast, skipped := 0, 0, 0, 0
	why := map[D]int{}
	for i, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if skip != nil && skip(src) {
			skipped++
			continue
		}
		c.check(t, f, src)
		if i%10 == 0 {
			// Windows line endings: \r is white space, and a byte of a column.
			c.check(t, f+" (CRLF)", bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		}
		bytesIn += len(src)
		if _, d := c.fast(f, src); d == "" {
			fast++
			bytesFast += len(src)
		} else {
			why[d]++
		}
	}
	parsed := len(files) - skipped
	t.Logf("%d files, %d not parsed by the index: %d (%.1f%%, %.1f%% of the bytes) on the fast path, %d through %s",
		len(files), skipped, fast, 100*float64(fast)/float64(max(parsed, 1)), 100*float64(bytesFast)/float64(max(bytesIn, 1)), parsed-fast, c.full)
	reasons := slices.SortedFunc(maps.Keys(why), func(a, b D) int { return cmp.Compare(why[b], why[a]) })
	for _, d := range reasons {
		t.Logf("  %5d %s", why[d], d)
	}
	if fast < parsed*3/4 {
		t.Errorf("only %d of %d files took the fast path", fast, parsed)
	}
}

// agreesOnMutations checks n files of the corpus broken by mutateLines
// (files over 60 KB and those skip names left out), and keeps the first
// that fails in the temporary directory.
func (c fastCase[D]) agreesOnMutations(t *testing.T, files []string, n int, r *rand.Rand, toks []string, skip func(src []byte) bool) {
	t.Helper()
	accepted := 0
	for i := 0; i < n; i++ {
		src, err := os.ReadFile(files[r.IntN(len(files))])
		if err != nil || len(src) > 60000 || len(src) == 0 || skip != nil && skip(src) {
			continue
		}
		mut := mutateLines(r, src, toks)
		if _, why := c.fast(c.path, mut); why == "" {
			accepted++
		}
		c.check(t, fmt.Sprintf("mutation %d", i), mut)
		if t.Failed() {
			f := filepath.Join(os.TempDir(), fmt.Sprintf("fastpath-mutation-%d-%s", i, c.path))
			if os.WriteFile(f, mut, 0o644) == nil {
				t.Logf("the mutated file is %s", f)
			}
			return
		}
	}
	t.Logf("%d mutated files, %d on the fast path", n, accepted)
}

// fastRecordDiff says where two records first differ.
func fastRecordDiff(got, want FileRecord) string {
	var b bytes.Buffer
	if got.Default != want.Default {
		fmt.Fprintf(&b, "default: fast %q, %q\n", got.Default, want.Default)
	}
	b.WriteString(firstDiff("import", got.Imports, want.Imports))
	b.WriteString(firstDiff("symbol", got.Symbols, want.Symbols))
	if b.Len() == 0 {
		fmt.Fprintf(&b, "fast %+v\nfull %+v\n", got, want)
	}
	return b.String()
}

// firstDiff says where two lists first differ, "" if they do not.
func firstDiff[T any](what string, got, want []T) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w T
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s %d: fast %+v, full %+v\n", what, i, g, w)
		}
	}
	return ""
}
