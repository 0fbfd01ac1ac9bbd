package diff

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/corehq/core/internal/gitx"
)

// newFileWriter writes untracked files as git diff writes a file that is
// new (intent-to-add, diffed against a tree that lacks it), without a git
// process: the header, "new file mode", the "index" line with both ids
// abbreviated, then the whole content as one hunk, "Binary files ...
// differ" when git would call it binary, or nothing more for an empty file.
// It is used only where nothing would make git's rendering differ: no
// attribute (text, eol, crlf, filter, ident, diff, working-tree-encoding)
// applies to the files, core.autocrlf is off, and the object store is one
// abbreviator reads (untracked.go decides).
type newFileWriter struct {
	root     string
	fileMode bool // core.fileMode: an owner-executable file is 100755
	names    *abbreviator
	zero     string // the null id, abbreviated
	buf      []byte
}

// firstFewBytes is how much of a file git looks at for a NUL byte to call
// it binary (xdiff-interface.c, buffer_is_binary).
const firstFewBytes = 8000

// write writes the patch of the untracked file at path (relative to root,
// slash-separated) to w.
func (n *newFileWriter) write(w *bufio.Writer, path string) error {
	full := filepath.Join(n.root, filepath.FromSlash(path))
	st, err := os.Lstat(full)
	if err != nil {
		return err
	}
	var content, sum []byte
	mode := "100644"
	switch {
	case st.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(full)
		if err != nil {
			return err
		}
		content, mode = []byte(target), "120000"
	case st.Mode().IsRegular():
		if content, sum, err = readBlob(full); err != nil {
			return err
		}
		if n.fileMode && st.Mode()&0o100 != 0 {
			mode = "100755"
		}
	default:
		return nil // git lists only files and symbolic links
	}
	if sum == nil {
		sum = blobSum(content)
	}
	id, err := n.names.abbrev(sum)
	if err != nil {
		return err
	}

	b := append(n.buf[:0], "diff --git "...)
	b = appendCQuoted(b, "a/", path, false)
	b = append(b, ' ')
	b = appendCQuoted(b, "b/", path, false)
	b = append(b, "\nnew file mode "...)
	b = append(b, mode...)
	b = append(b, "\nindex "...)
	b = append(b, n.zero...)
	b = append(b, ".."...)
	b = append(b, id...)
	b = append(b, '\n')
	label := len(b)
	b = appendCQuoted(b, "b/", path, false)
	newName := string(b[label:])
	b = b[:label]
	switch {
	case len(content) == 0 && !bytes.Equal(sum, emptyBlob[:]):
		// Grown past TruncateAt since it was listed: git, over its
		// core.bigFileThreshold, calls it binary.
		b = append(b, "Binary files /dev/null and "...)
		b = append(b, newName...)
		b = append(b, " differ\n"...)
	case len(content) == 0:
	case bytes.IndexByte(content[:min(len(content), firstFewBytes)], 0) >= 0:
		// A NUL byte early on.
		b = append(b, "Binary files /dev/null and "...)
		b = append(b, newName...)
		b = append(b, " differ\n"...)
	default:
		b = append(b, "--- /dev/null\n+++ "...)
		b = append(b, newName...)
		if bytes.IndexByte([]byte(newName), ' ') >= 0 {
			b = append(b, '\t') // git's, for a label with a space
		}
		lines := bytes.Count(content, []byte{'\n'})
		if content[len(content)-1] != '\n' {
			lines++
		}
		b = append(b, "\n@@ -0,0 +1"...)
		if lines != 1 {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(lines), 10)
		}
		b = append(b, " @@\n"...)
		if _, err := w.Write(b); err != nil {
			return err
		}
		b = b[:0]
		for len(content) > 0 {
			line := content
			i := bytes.IndexByte(content, '\n')
			if i >= 0 {
				line, content = content[:i+1], content[i+1:]
			} else {
				content = nil
			}
			if err := w.WriteByte('+'); err != nil {
				return err
			}
			if _, err := w.Write(line); err != nil {
				return err
			}
			if i < 0 {
				if _, err := w.WriteString("\n\\ No newline at end of file\n"); err != nil {
					return err
				}
			}
		}
	}
	n.buf = b
	_, err = w.Write(b)
	return err
}

// emptyBlob is the id of the empty blob.
var emptyBlob = sha1.Sum([]byte("blob 0\x00"))

// blobSum is git's id of a blob of content (git hash-object).
func blobSum(content []byte) []byte {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return h.Sum(nil)
}

// readBlob reads a file of at most TruncateAt bytes whole (sum nil). One
// that grew past that since it was listed is not held: its id is hashed
// as it is read (content nil), and it is written as binary.
func readBlob(path string) (content, sum []byte, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	content, err = io.ReadAll(io.LimitReader(f, TruncateAt+1))
	if err != nil || len(content) <= TruncateAt {
		return content, nil, err
	}
	size, err := io.Copy(io.Discard, f)
	if err != nil {
		return nil, nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.FormatInt(size+int64(len(content)), 10) + "\x00"))
	if _, err := io.CopyN(h, f, size+int64(len(content))); err != nil {
		return nil, nil, err
	}
	return nil, h.Sum(nil), nil
}

// diffConfig is the configuration that changes how git writes a new file.
type diffConfig struct {
	autocrlf       bool   // core.autocrlf true or input: content converted
	fileMode       bool   // core.fileMode (default true)
	abbrev         int    // core.abbrev: -1 for auto
	attributesFile string // core.attributesFile, "" when unset
	excludesFile   string // core.excludesFile, "" when unset
	orderFile      bool   // diff.orderFile set: git reorders the files
	unknown        bool   // a value git would refuse, or one not parsed here
}

// readDiffConfig asks git (one process) for the settings diffConfig holds.
func readDiffConfig(ctx context.Context, root string) (diffConfig, error) {
	c := diffConfig{fileMode: true, abbrev: -1}
	res, err := gitx.Run(ctx, root, "config", "-z", "--get-regexp", `^(core\.(autocrlf|filemode|abbrev|attributesfile|excludesfile)|diff\.orderfile)$`)
	if err != nil {
		return c, err
	}
	if res.Exit > 1 { // 1: none set
		return c, res.Describe("config", "--get-regexp")
	}
	for _, entry := range strings.Split(res.Stdout, "\x00") {
		if entry == "" {
			continue
		}
		key, value, hasValue := strings.Cut(entry, "\n")
		switch key {
		case "core.autocrlf":
			if strings.EqualFold(value, "input") {
				c.autocrlf = true
			} else if b, ok := gitBool(value, hasValue); ok {
				c.autocrlf = b
			} else {
				c.unknown = true
			}
		case "core.filemode":
			b, ok := gitBool(value, hasValue)
			c.fileMode, c.unknown = b, c.unknown || !ok
		case "core.abbrev":
			n, err := strconv.Atoi(value)
			switch b, isBool := gitBool(value, hasValue); {
			case strings.EqualFold(value, "auto"):
				c.abbrev = -1
			case err == nil && n >= 4 && n <= 40:
				c.abbrev = n
			case isBool && !b:
				c.abbrev = 40
			default:
				c.unknown = true
			}
		case "core.attributesfile":
			c.attributesFile = value
		case "core.excludesfile":
			c.excludesFile = value
		case "diff.orderfile":
			c.orderFile = true
		}
	}
	return c, nil
}

// gitBool parses a boolean as git does (config.c, git_parse_maybe_bool):
// a key without a value is true; ok is false for what git would refuse.
func gitBool(value string, hasValue bool) (b, ok bool) {
	if !hasValue {
		return true, true
	}
	switch strings.ToLower(value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	n, err := strconv.ParseInt(value, 10, 64)
	return n != 0, err == nil
}

// attributeFiles reports whether any gitattributes file could apply to
// the untracked files: a .gitattributes in a directory from the top of
// the working tree down to any of them, $GIT_DIR/info/attributes, the
// global file (core.attributesFile, else $XDG_CONFIG_HOME/git/attributes
// or ~/.config/git/attributes) or the system's (/etc/gitattributes or
// <git's prefix>/etc/gitattributes).
func attributeFiles(b resolved, cfg diffConfig, root string, paths []string) bool {
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return err == nil
	}
	candidates := []string{b.infoAttributes, globalFile(cfg.attributesFile, "attributes")}
	if os.Getenv("GIT_ATTR_NOSYSTEM") == "" {
		candidates = append(candidates, "/etc/gitattributes")
		if git, err := exec.LookPath("git"); err == nil {
			candidates = append(candidates, filepath.Join(filepath.Dir(filepath.Dir(git)), "etc", "gitattributes"))
		}
	}
	// The directories from the top down to root, then root's below it.
	dirs := map[string]bool{b.top: true}
	if b.prefix != "" {
		d := b.top
		for _, part := range strings.Split(strings.TrimSuffix(b.prefix, "/"), "/") {
			d = filepath.Join(d, part)
			dirs[d] = true
		}
	}
	dirs[root] = true
	for _, p := range paths {
		for d := path.Dir(p); d != "."; d = path.Dir(d) {
			full := filepath.Join(root, filepath.FromSlash(d))
			if dirs[full] {
				break
			}
			dirs[full] = true
		}
	}
	for d := range dirs {
		candidates = append(candidates, filepath.Join(d, ".gitattributes"))
	}
	for _, c := range candidates {
		if c != "" && exists(c) {
			return true
		}
	}
	return false
}

// globalFile is the path of a user's git file: configured (a leading ~/
// is the home directory), else $XDG_CONFIG_HOME/git/<name> or
// ~/.config/git/<name>; "" when there is no home.
func globalFile(configured, name string) string {
	home, _ := os.UserHomeDir()
	switch {
	case configured != "":
		if rest, ok := strings.CutPrefix(configured, "~/"); ok && home != "" {
			return filepath.Join(home, rest)
		}
		return configured
	case os.Getenv("XDG_CONFIG_HOME") != "":
		return filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", name)
	case home != "":
		return filepath.Join(home, ".config", "git", name)
	}
	return ""
}

// convertingAttributes are the attributes that change how git diffs a
// file: its content converted, a driver, or binary (the macro sets -diff
// and -text).
var convertingAttributes = []string{"crlf", "ident", "filter", "eol", "text", "working-tree-encoding", "diff"}

// anyAttribute reports whether git sets, unsets or gives a value to any
// convertingAttributes for any of paths (git check-attr).
func anyAttribute(ctx context.Context, root string, paths []string) (bool, error) {
	cmd := gitx.Command(ctx, root, append([]string{"check-attr", "-z", "--stdin"}, convertingAttributes...)...)
	var in bytes.Buffer
	for _, p := range paths {
		in.WriteString(p)
		in.WriteByte(0)
	}
	cmd.Stdin = &in
	res, err := gitx.Exec(ctx, cmd)
	if err != nil {
		return false, err
	}
	if res.Exit != 0 {
		return false, res.Describe("check-attr")
	}
	// path NUL attribute NUL value NUL, for each path and attribute.
	f := strings.Split(res.Stdout, "\x00")
	for i := 2; i < len(f); i += 3 {
		if f[i] != "unspecified" {
			return true, nil
		}
	}
	return false, nil
}

// writeAll writes the patch of each untracked file, in order, to w; a file
// gone since it was listed is left out.
func (n *newFileWriter) writeAll(w io.Writer, paths []string) error {
	bw, buffered := w.(*bufio.Writer)
	if !buffered {
		bw = bufio.NewWriterSize(w, 32<<10)
	}
	for _, p := range paths {
		if err := n.write(bw, p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if buffered {
		return nil
	}
	return bw.Flush()
}
