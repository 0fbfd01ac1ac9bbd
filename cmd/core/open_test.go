package main

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/corehq/core/console"
)

// TestCopyConsoleCarriesThePolicy: the file:// copy has no header, so its
// index.html holds the page policy in a <meta> tag; the assets are copied
// as they are.
func TestCopyConsoleCarriesThePolicy(t *testing.T) {
	files := fstest.MapFS{
		"index.html":        {Data: []byte("<!doctype html>\n<html>\n  <head>\n    <script defer src=\"./assets/a.js\"></script>\n  </head>\n</html>\n")},
		"assets/a.js":       {Data: []byte("console.log(1)")},
		"assets/nested/b.c": {Data: []byte("<head>")},
	}
	dir := filepath.Join(t.TempDir(), "console")
	if err := copyConsole(files, dir); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	meta := strings.Index(string(index), `<meta http-equiv="Content-Security-Policy" content="`+html.EscapeString(console.MetaCSP())+`" />`)
	if meta < 0 || meta > strings.Index(string(index), "<script") {
		t.Fatalf("index.html has no policy before its script:\n%s", index)
	}
	if strings.Contains(string(index), "frame-ancestors") {
		t.Errorf("the meta policy says frame-ancestors, which browsers ignore there:\n%s", index)
	}
	for name, f := range files {
		if name == "index.html" {
			continue
		}
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err != nil || string(b) != string(f.Data) {
			t.Errorf("%s: %q, %v; want it copied as it is", name, b, err)
		}
	}
}
