package backend

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/corehq/core/internal/diff"
	"github.com/corehq/core/internal/testbed"
)

// threeMB is 3 MB of numbered lines.
func threeMB(prefix string) string {
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "%s line %d: <the quick brown fox & \"friends\">\n", prefix, i)
	}
	return b.String()
}

// TestThePatchCapHoldsOnEveryPathThatReachesIt writes 3 MB through each
// way a patch's bytes reach the cap: git's tracked diff (bufio's WriteTo),
// untracked files written by core, untracked files git renders (io.Copy
// from a file), and io.Copy and WriteTo straight into it. Every part fits
// the answer's budget as JSON, and the parts, read on with their cursors,
// are the patch.
func TestThePatchCapHoldsOnEveryPathThatReachesIt(t *testing.T) {
	if _, ok := any(&capBuffer{}).(io.ReaderFrom); ok {
		t.Fatal("capBuffer has ReadFrom: io.Copy would skip its Write, and the cap")
	}
	t.Run("io.Copy and WriteTo into it", func(t *testing.T) {
		for name, write := range map[string]func(w io.Writer, s string) error{
			"io.Copy": func(w io.Writer, s string) error { _, err := io.Copy(w, strings.NewReader(s)); return err },
			"bufio WriteTo": func(w io.Writer, s string) error {
				_, err := bufio.NewReader(strings.NewReader(s)).WriteTo(w)
				return err
			},
			"bytes WriteTo":  func(w io.Writer, s string) error { _, err := bytes.NewBufferString(s).WriteTo(w); return err },
			"fmt.Fprint":     func(w io.Writer, s string) error { _, err := fmt.Fprint(w, s); return err },
			"io.WriteString": func(w io.Writer, s string) error { _, err := io.WriteString(w, s); return err },
		} {
			b := &capBuffer{skip: 10, max: 1000}
			if err := write(b, threeMB("x")); err != errCapped {
				t.Errorf("%s: err = %v, want the cap", name, err)
			}
			if b.buf.Len() != 1000 || !b.cut {
				t.Errorf("%s: kept %d bytes (cut %v), want 1000", name, b.buf.Len(), b.cut)
			}
		}
	})

	for _, tc := range []struct {
		name  string
		setup func(r *testbed.GitRepo)
	}{
		{"a tracked file (git's diff, through bufio's WriteTo)", func(r *testbed.GitRepo) {
			r.Write("big.txt", "old\n")
			r.Commit("base")
			r.Write("big.txt", threeMB("tracked"))
		}},
		{"an untracked file core writes", func(r *testbed.GitRepo) {
			r.Write("README", "x\n")
			r.Commit("base")
			r.Write("new.txt", threeMB("untracked"))
		}},
		{"an untracked file git renders (io.Copy from a file)", func(r *testbed.GitRepo) {
			r.Git("config", "core.autocrlf", "true") // core leaves the rendering to git
			r.Write("README", "x\n")
			r.Commit("base")
			r.Write("new.txt", threeMB("rendered"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := testbed.NewGitRepo(t, "main")
			tc.setup(repo)
			ctx := context.Background()
			var whole bytes.Buffer
			if err := diff.WritePatch(ctx, &whole, repo.Dir, ""); err != nil {
				t.Fatal(err)
			}
			if whole.Len() < 3<<20 {
				t.Fatalf("the whole patch is %d bytes", whole.Len())
			}
			r := &Review{root: repo.Dir}
			var read strings.Builder
			cursor := ""
			for parts := 0; parts < 3; parts++ {
				part, err := r.Patch(ctx, "", nil, cursor)
				if err != nil {
					t.Fatal(err)
				}
				enc, _ := json.Marshal(part)
				if len(enc) > AnswerBudget {
					t.Fatalf("part %d is %d bytes as JSON, over the budget of %d", parts, len(enc), AnswerBudget)
				}
				if part.Offset != read.Len() || part.NextCursor == "" || !strings.HasSuffix(part.Text, "\n") || !strings.Contains(part.Note, "next_cursor") {
					t.Fatalf("part %d: offset %d (read %d), next %q, note %q", parts, part.Offset, read.Len(), part.NextCursor, part.Note)
				}
				read.WriteString(part.Text)
				cursor = part.NextCursor
			}
			if !strings.HasPrefix(whole.String(), read.String()) {
				t.Error("the parts read on with their cursors are not the patch")
			}
		})
	}
}

func TestAPatchNarrowedToPathsHoldsOnlyThem(t *testing.T) {
	repo := testbed.NewGitRepo(t, "main")
	repo.Write("a/one.go", "package a\n")
	repo.Write("b/two.go", "package b\n")
	repo.Commit("base")
	repo.Write("a/one.go", "package a\n\nfunc One() {}\n")
	repo.Write("b/two.go", "package b\n\nfunc Two() {}\n")
	repo.Write("a/new_test.go", "package a\n")
	repo.Write("c/new.go", "package c\n")
	r := &Review{root: repo.Dir}
	ctx := context.Background()
	for _, tc := range []struct {
		paths      []string
		want, not  []string
		wantNoteIs string
	}{
		{[]string{"a"}, []string{"a/one.go", "a/new_test.go"}, []string{"b/two.go", "c/new.go"}, ""},
		{[]string{"**/*_test.go"}, []string{"a/new_test.go"}, []string{"a/one.go", "b/two.go", "c/new.go"}, ""},
		{[]string{"b/two.go", "c"}, []string{"b/two.go", "c/new.go"}, []string{"a/one.go"}, ""},
		{[]string{"nowhere"}, nil, []string{"a/one.go", "c/new.go"}, "no changed file matches paths"},
	} {
		part, err := r.Patch(ctx, "", tc.paths, "")
		if err != nil {
			t.Fatalf("%v: %v", tc.paths, err)
		}
		for _, p := range tc.want {
			if !strings.Contains(part.Text, "+++ b/"+p) {
				t.Errorf("%v: no %s in\n%s", tc.paths, p, part.Text)
			}
		}
		for _, p := range tc.not {
			if strings.Contains(part.Text, p) {
				t.Errorf("%v: %s in\n%s", tc.paths, p, part.Text)
			}
		}
		if !strings.Contains(part.Note, tc.wantNoteIs) {
			t.Errorf("%v: note %q", tc.paths, part.Note)
		}
	}
	for _, bad := range [][]string{{"../x"}, {"/etc"}, {"a/{b,c}"}, {"a\\b"}, {""}} {
		if _, err := r.Patch(ctx, "", bad, ""); err == nil {
			t.Errorf("paths %q were taken", bad)
		}
	}
	if _, err := r.Patch(ctx, "", []string{"b"}, Cursor(question("read_patch", "", []string{"a"}), 3)); err == nil {
		t.Error("a cursor of other paths was taken")
	}
}
