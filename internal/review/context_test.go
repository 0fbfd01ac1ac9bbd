package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestContextOfASymbolIsBoundedAndStaysInTheWorkspace(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body := "package a\n\n// Long is long.\nfunc Long() {\n" + strings.Repeat("\tprintln()\n", 100) + "}\n"
	write("a/long.go", body)
	write("a/we#ird.go", "package a\n\nfunc Odd() {}\n")
	s := IndexSymbols{Root: root}
	c, err := ReadContext(context.Background(), s, "symbol:a/long.go#Long")
	if err != nil {
		t.Fatal(err)
	}
	if c.Symbol.Line != 4 || c.Symbol.EndLine != 105 || len(c.Definition.Lines) != MaxDefinition || !c.Definition.Truncated || c.CallersCap != MaxCallers {
		t.Errorf("context = %+v", c.Symbol)
	}
	if c, err := ReadContext(context.Background(), s, "symbol:a/we#ird.go#Odd"); err != nil || c.Symbol.Path != "a/we#ird.go" {
		t.Errorf("a '#' in the path: %+v, %v", c.Symbol, err)
	}
	for id, want := range map[string]error{
		"Long":                         ErrNotSymbolID,
		"symbol:a/long.go":             ErrNotSymbolID,
		"symbol:../../etc/passwd#root": ErrNotSymbolID,
		"symbol:/etc/passwd#root":      ErrNotSymbolID,
		"symbol:a/long.go#Nope":        ErrUnknownSymbol,
		"symbol:a/missing.go#Long":     ErrUnknownSymbol,
	} {
		if _, err := ReadContext(context.Background(), s, id); !errors.Is(err, want) {
			t.Errorf("%q: err = %v, want %v", id, err, want)
		}
	}
}

func FuzzFindSymbolFile(f *testing.F) {
	root := f.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Add("symbol:a.go#A")
	f.Add("symbol:../a.go#A")
	f.Add("symbol:#")
	f.Fuzz(func(t *testing.T, id string) {
		file, name, _, err := findSymbolFile(root, id)
		if err != nil {
			return
		}
		if name == "" || !filepath.IsLocal(filepath.FromSlash(file)) {
			t.Fatalf("%q gave file %q, name %q", id, file, name)
		}
	})
}

func TestASymlinkedDirectoryCannotLeadContextOutOfTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.go"), []byte("package s\n\nfunc Secret() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	_, err := ReadContext(context.Background(), IndexSymbols{Root: root}, "symbol:link/secret.go#Secret")
	if !errors.Is(err, ErrUnknownSymbol) {
		t.Errorf("err = %v: a file outside the workspace was read", err)
	}
}

func TestLinesAreWhatACommentAnchorsTo(t *testing.T) {
	root := t.TempDir()
	for name, data := range map[string]string{"lf.txt": "a\nb\n", "crlf.txt": "a\r\nb\r\n", "open.txt": "a\nb", "empty.txt": "", "blank.txt": "a\n\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string][]string{"lf.txt": {"a", "b"}, "crlf.txt": {"a", "b"}, "open.txt": {"a", "b"}, "empty.txt": {}, "blank.txt": {"a", ""}} {
		got, err := Lines(root, name)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := Lines(root, "../"+filepath.Base(root)+"/lf.txt"); err == nil {
		t.Error("a path out of the workspace was read")
	}
}
