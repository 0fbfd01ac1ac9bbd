package diff

import (
	"strings"
	"testing"
)

func TestParseDiffReadsGitsCombinedOutput(t *testing.T) {
	out := ":100644 100644 190423f 0000000 R099\x00b.txt\x00c.txt\x00" +
		":000000 100644 0000000 0000000 A\x00bin.dat\x00" +
		":100644 000000 1111111 0000000 D\x00gone\x00" +
		"1\t0\t\x00b.txt\x00c.txt\x00-\t-\tbin.dat\x000\t2\tgone\x00\x00" +
		"diff --git a/b.txt b/c.txt\nsimilarity index 99%\n@@ -100,0 +101 @@\n+x\n" +
		"diff --git a/bin.dat b/bin.dat\nBinary files /dev/null and b/bin.dat differ\n" +
		"diff --git a/gone b/gone\n@@ -1,2 +0,0 @@\n-a\n-b\n"
	files, err := parseDiff(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("files = %+v", files)
	}
	if f := files[0]; f.Kind != KindRenamed || f.OldPath != "b.txt" || f.Path != "c.txt" || f.Added != 1 || len(f.Hunks) != 1 || f.Hunks[0] != (Hunk{100, 0, 101, 1}) {
		t.Errorf("rename = %+v", f)
	}
	if f := files[1]; !f.Binary || f.Kind != KindAdded || len(f.Hunks) != 0 {
		t.Errorf("binary = %+v", f)
	}
	if f := files[2]; f.Kind != KindDeleted || f.Deleted != 2 || f.Hunks[0] != (Hunk{1, 2, 0, 0}) {
		t.Errorf("deleted = %+v", f)
	}
}

func TestParseDiffRefusesWhatIsNotGitsOutput(t *testing.T) {
	for name, out := range map[string]string{
		"a raw record without a path":       ":100644 100644 a b M",
		"an unknown status":                 ":100644 100644 a b Z\x00x\x00",
		"counts that are not numbers":       ":100644 100644 a b M\x00x\x00one\ttwo\tx\x00\x00",
		"more sections than files":          ":100644 100644 a b M\x00x\x001\t1\tx\x00\x00diff --git a/x b/x\ndiff --git a/y b/y\n",
		"a hunk header that does not parse": ":100644 100644 a b M\x00x\x001\t1\tx\x00\x00diff --git a/x b/x\n@@ -a +b @@\n",
	} {
		if _, err := parseDiff(strings.NewReader(out)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzParseDiff(f *testing.F) {
	f.Add(":100644 100644 190423f 0000000 R099\x00b.txt\x00c.txt\x001\t0\t\x00b.txt\x00c.txt\x00\x00diff --git a/b b/c\n@@ -1 +1 @@\n")
	f.Add(":000000 100644 0000000 0000000 A\x00x\x00-\t-\tx\x00\x00diff --git a/x b/x\nBinary files differ\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, out string) {
		files, err := parseDiff(strings.NewReader(out))
		if err != nil {
			return
		}
		for _, f := range files {
			if f.Path == "" || f.Added < 0 || f.Deleted < 0 {
				t.Fatalf("a parsed file is not sane: %+v", f)
			}
			for _, h := range f.Hunks {
				if h.OldStart < 0 || h.NewStart < 0 || h.OldLines < 0 || h.NewLines < 0 {
					t.Fatalf("a hunk is not sane: %+v", h)
				}
			}
		}
	})
}
