package diff

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitConfigIsolated keeps the user's and the system's git configuration
// from both core's git processes and the test's own.
func gitConfigIsolated(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
}

// trickyRepo is a repository whose change holds what a patch must get
// right: names with spaces, non-ASCII bytes (valid UTF-8 or not), quotes,
// backslashes, tabs and control bytes; executable bits, symbolic links,
// binary files (and a NUL past git's first 8000 bytes, which is text),
// empty files, files without a trailing newline, CRLF lines; tracked files
// modified, deleted, renamed and made executable; and untracked files of
// all those kinds. Untracked contents share nothing with deleted files, so
// that git's rename detection pairs none of them.
func trickyRepo(t *testing.T) *repo {
	r := newRepo(t)
	r.write("modified.txt", lines(30))
	r.write("deleted.txt", "to be deleted\nsoon\n")
	r.write("renamed before.txt", lines(12))
	r.write("mode.sh", "#!/bin/sh\necho hi\n")
	r.write("no eol.txt", "first\nlast")
	r.write("tracked é.txt", "été\n")
	r.write("bin.dat", "\x00\x01\x02tracked binary")
	r.write("tracked-empty.txt", "")
	r.write(".gitignore", "*.log\n/nested/\n")
	r.commit("init")

	r.write("modified.txt", strings.Replace(lines(30), "line xx\n", "changed\n", -1))
	r.git("mv", "renamed before.txt", "renamed after.txt")
	must(t, os.Remove(filepath.Join(r.dir, "deleted.txt")))
	must(t, os.Chmod(filepath.Join(r.dir, "mode.sh"), 0o755))
	r.write("no eol.txt", "first\nlast, changed")
	r.write("tracked é.txt", "été\nhiver\n")
	r.write("bin.dat", "\x00\x01\x02tracked binary, changed")

	untracked := map[string]string{
		"new file.txt":              "hello\nworld\n",
		"dir with space/inner.txt":  "inner\n",
		"naïve.txt":                 "naïve content\n",
		"\xff\xfe-latin.txt":        "not UTF-8 name\n",
		`quo"te.txt`:                "quoted\n",
		`back\slash.txt`:            "backslash\n",
		"tab\tname.txt":             "tab\n",
		"ctrl\x01char.txt":          "control\n",
		"empty.txt":                 "",
		"noeol.txt":                 "a\nb",
		"one.txt":                   "one line\n",
		"single":                    "x",
		"crlf.txt":                  "a\r\nb\r\n",
		"blank lines.txt":           "\n\n\n",
		"marker.txt":                "\\ No newline at end of file\n",
		"bin/new.dat":               "PNG\x00\x00binary",
		"late-nul.txt":              strings.Repeat("a", 8000) + "\x00tail\n",
		"early-nul.txt":             strings.Repeat("a", 7999) + "\x00tail\n",
		"deep/er/still/file.go":     "package still\n",
		"ignored.log":               "ignored\n",
		"nested/ignored-by-dir.txt": "ignored\n",
	}
	for name, content := range untracked {
		r.write(name, content)
	}
	exe := filepath.Join(r.dir, "run.sh")
	must(t, os.WriteFile(exe, []byte("#!/bin/sh\nexit 0\n"), 0o755))
	must(t, os.Symlink("target/of the link", filepath.Join(r.dir, "link")))
	must(t, os.Symlink("modified.txt", filepath.Join(r.dir, "link to file")))
	// A nested repository: git lists it as a directory, and it stays out.
	must(t, os.MkdirAll(filepath.Join(r.dir, "inner-repo"), 0o755))
	init := exec.Command("git", "init", "-q", filepath.Join(r.dir, "inner-repo"))
	if out, err := init.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	r.write("inner-repo/file.txt", "inside\n")
	return r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// gitsOwnPatch is the patch git itself writes for the change in dir:
// `git diff --relative HEAD` (core.quotePath off, as core runs git), first of the
// tracked files alone, then with the untracked files made intent-to-add in
// a throwaway copy of the index.
func gitsOwnPatch(t *testing.T, dir string) (tracked, all string) {
	t.Helper()
	run := func(env []string, stdin string, args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "core.quotePath=off"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %s: %v %s", strings.Join(args, " "), err, stderr.String())
		}
		return string(out)
	}
	tracked = run(nil, "", "diff", "--relative", "HEAD")
	index := filepath.Join(t.TempDir(), "index")
	gitIndex := strings.TrimSpace(run(nil, "", "rev-parse", "--path-format=absolute", "--git-path", "index"))
	content, err := os.ReadFile(gitIndex)
	must(t, err)
	must(t, os.WriteFile(index, content, 0o644))
	others := run(nil, "", "ls-files", "-z", "--others", "--exclude-standard")
	var list []string
	for _, p := range strings.Split(others, "\x00") {
		if p != "" && !strings.HasSuffix(p, "/") {
			list = append(list, p)
		}
	}
	env := []string{"GIT_INDEX_FILE=" + index}
	run(env, strings.Join(list, "\x00"), "--literal-pathspecs", "add", "--intent-to-add", "--pathspec-from-file=-", "--pathspec-file-nul")
	return tracked, run(env, "", "diff", "--relative", "HEAD")
}

// fileSections splits a patch into its files' sections ("diff --git" on).
func fileSections(patch string) []string {
	var out []string
	for _, s := range strings.SplitAfter(patch, "\n") {
		if strings.HasPrefix(s, "diff --git ") || len(out) == 0 {
			out = append(out, s)
			continue
		}
		out[len(out)-1] += s
	}
	return out
}

// TestPatchMatchesGitOnATrickyChange: core's patch is byte for byte the
// tracked files' `git diff HEAD`, followed by the sections git writes for
// the untracked files, which core writes itself here (no git process).
func TestPatchMatchesGitOnATrickyChange(t *testing.T) {
	gitConfigIsolated(t)
	r := trickyRepo(t)
	if n := assertPatchIsGits(t, r.dir, true); n < 20 {
		t.Errorf("only %d untracked files' sections", n)
	}
}

// assertPatchIsGits compares core's patch of the change in dir with git's
// and returns how many untracked files' sections it holds; inGo is
// whether core writes those itself.
func assertPatchIsGits(t *testing.T, dir string, inGo bool) int {
	t.Helper()
	ctx := context.Background()
	u, err := listUntracked(ctx, dir)
	must(t, err)
	b, err := resolveFor(ctx, dir, "", false)
	must(t, err)
	cfg, err := readDiffConfig(ctx, dir)
	must(t, err)
	render, err := planNewFiles(ctx, u, b, cfg)
	must(t, err)
	if (render != nil) != inGo {
		t.Fatalf("core writes the untracked files itself: %v, want %v", render != nil, inGo)
	}
	if render != nil {
		render.names.close()
	}

	var patch bytes.Buffer
	must(t, WritePatch(ctx, &patch, dir, ""))
	got := patch.String()
	tracked, all := gitsOwnPatch(t, dir)
	if !strings.HasPrefix(got, tracked) {
		t.Fatalf("the patch does not begin with git's of the tracked files\ncore:\n%s\ngit:\n%s", got, tracked)
	}
	gotSections, wantSections := fileSections(got), fileSections(all)
	slices.Sort(gotSections)
	slices.Sort(wantSections)
	if !slices.Equal(gotSections, wantSections) {
		for _, s := range wantSections {
			if !slices.Contains(gotSections, s) {
				t.Errorf("git writes, core does not:\n%q", s)
			}
		}
		for _, s := range gotSections {
			if !slices.Contains(wantSections, s) {
				t.Errorf("core writes, git does not:\n%q", s)
			}
		}
	}
	// The untracked files follow in git's order (by path, bytewise).
	rest := fileSections(strings.TrimPrefix(got, tracked))
	var inOrder []string
	for _, s := range fileSections(all) {
		if slices.Contains(rest, s) {
			inOrder = append(inOrder, s)
		}
	}
	if !slices.Equal(rest, inOrder) {
		t.Errorf("the untracked files' sections are not in git's order")
	}
	return len(rest)
}

// TestPatchLeavesAttributedFilesToGit: where an attribute changes how git
// diffs a file (a conversion, a driver, binary), or core.autocrlf is on,
// git renders the untracked files, and the patch is still git's.
func TestPatchLeavesAttributedFilesToGit(t *testing.T) {
	for name, setup := range map[string]func(r *repo){
		"gitattributes binary": func(r *repo) { r.write("sub/.gitattributes", "*.txt binary\n") },
		"info attributes": func(r *repo) {
			r.write(".git/info/attributes", "*.txt text eol=crlf\n")
		},
		"autocrlf": func(r *repo) { r.git("config", "core.autocrlf", "true") },
	} {
		t.Run(name, func(t *testing.T) {
			gitConfigIsolated(t)
			r := newRepo(t)
			r.write("a.txt", "a\n")
			r.commit("init")
			r.write("sub/new.txt", "one\r\ntwo\r\n")
			r.write("sub/other.txt", "plain\n")
			setup(r)
			_ = assertPatchIsGits(t, r.dir, false)
		})
	}
	t.Run("attributes that change nothing", func(t *testing.T) {
		gitConfigIsolated(t)
		r := newRepo(t)
		r.write(".gitattributes", "*.md linguist-documentation\n")
		r.write("a.txt", "a\n")
		r.commit("init")
		r.write("sub/new.txt", "one\ntwo\n")
		_ = assertPatchIsGits(t, r.dir, true)
	})
	t.Run("core.fileMode off", func(t *testing.T) {
		gitConfigIsolated(t)
		r := newRepo(t)
		r.write("a.txt", "a\n")
		r.commit("init")
		r.git("config", "core.fileMode", "false")
		must(t, os.WriteFile(filepath.Join(r.dir, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
		_ = assertPatchIsGits(t, r.dir, true)
	})
	t.Run("core.abbrev 12", func(t *testing.T) {
		gitConfigIsolated(t)
		r := newRepo(t)
		r.write("a.txt", "a\n")
		r.commit("init")
		r.git("config", "core.abbrev", "12")
		r.write("new.txt", "new\n")
		_ = assertPatchIsGits(t, r.dir, true)
	})
	t.Run("in a subdirectory", func(t *testing.T) {
		gitConfigIsolated(t)
		r := newRepo(t)
		r.write("sub/a.txt", "a\n")
		r.commit("init")
		r.write("sub/new file.txt", "new\n")
		r.write("elsewhere.txt", "not under the root\n")
		_ = assertPatchIsGits(t, filepath.Join(r.dir, "sub"), true)
	})
}

// TestAbbreviationMatchesGit compares abbreviator with git's own (git
// ls-tree --abbrev, the same function as a patch's index lines) on a tree
// of thousands of blobs, loose, then packed, then both; at 4 digits many
// ids share a prefix, so the lengths grow past the minimum.
func TestAbbreviationMatchesGit(t *testing.T) {
	gitConfigIsolated(t)
	r := newRepo(t)
	for i := range 1500 {
		r.write(fmt.Sprintf("f/%04d", i), fmt.Sprintf("blob %d\n", i))
	}
	r.commit("many")
	check := func(stage string, length int) {
		t.Helper()
		arg := "--abbrev"
		if length > 0 {
			arg = fmt.Sprintf("--abbrev=%d", length)
		}
		objects := strings.TrimSpace(r.git("rev-parse", "--path-format=absolute", "--git-path", "objects"))
		configured := -1
		if length > 0 {
			configured = length
		}
		a, err := newAbbreviator(objects, configured)
		must(t, err)
		defer a.close()
		full := strings.Split(r.git("ls-tree", "-r", "HEAD"), "\n")
		short := strings.Split(r.git("ls-tree", "-r", arg, "HEAD"), "\n")
		grown := 0
		for i := range full {
			id := strings.Fields(full[i])[2]
			want := strings.Fields(short[i])[2]
			raw := make([]byte, 20)
			_, _ = fmt.Sscanf(id, "%x", &raw)
			got, err := a.abbrev(raw)
			must(t, err)
			if got != want {
				t.Fatalf("%s, --abbrev=%d: %s: got %s, git %s", stage, length, id, got, want)
			}
			if length > 0 && len(want) > length {
				grown++
			}
		}
		if length == 4 && grown == 0 {
			t.Errorf("%s: no id needed more than 4 digits: the test proves little", stage)
		}
	}
	check("loose", 4)
	check("loose", 0)
	r.git("repack", "-adq")
	check("packed", 4)
	check("packed", 0)
	for i := range 300 {
		r.write(fmt.Sprintf("g/%04d", i), fmt.Sprintf("another blob %d\n", i))
	}
	r.commit("more")
	check("packed and loose", 4)
	check("packed and loose", 0)
}
