package diff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCQuoteMatchesGitForEveryByte names a file after each byte a file
// name can hold and compares appendCQuoted with git's own quoting of it
// (git ls-files, which quotes with quote_c_style), core.quotePath on and
// off.
func TestCQuoteMatchesGitForEveryByte(t *testing.T) {
	r := newRepo(t)
	var names []string
	for b := 1; b < 256; b++ {
		if b == '/' {
			continue
		}
		name := "x" + string([]byte{byte(b)}) + "y"
		if err := os.WriteFile(filepath.Join(r.dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	names = append(names, "plain.txt", "with space", "naïve ünïcode", "tab\there", `back\slash`, `quo"te`)
	for _, name := range names[len(names)-6:] {
		if err := os.WriteFile(filepath.Join(r.dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, quotePath := range []bool{true, false} {
		for _, name := range names {
			cmd := exec.Command("git", "-c", "core.quotePath="+strconv.FormatBool(quotePath), "ls-files", "--others", "--", ":(literal)"+name)
			cmd.Dir = r.dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("git ls-files %q: %v", name, err)
			}
			want := strings.TrimSuffix(string(out), "\n")
			if got := string(appendCQuoted(nil, "", name, quotePath)); got != want {
				t.Errorf("quotePath=%v, %q: got %s, git wrote %s", quotePath, name, got, want)
			}
		}
	}
}

func TestCQuoteTwoQuotesPrefixAndNameTogether(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"a.go", "b/a.go"},
		{"dir/with space.txt", "b/dir/with space.txt"},
		{`quo"te`, `"b/quo\"te"`},
		{"tab\t", `"b/tab\t"`},
		{"é", `"b/\303\251"`},
		{"\x7f", `"b/\177"`},
	} {
		if got := string(appendCQuoted(nil, "b/", c.name, true)); got != c.want {
			t.Errorf("%q: got %s, want %s", c.name, got, c.want)
		}
	}
}

// FuzzCQuote: what git would write unquotes back to the name, and a name
// is quoted exactly when it holds a byte that must be escaped; with
// core.quotePath on, the result is ASCII.
func FuzzCQuote(f *testing.F) {
	for _, s := range []string{"", "a", "a b", `"`, `\`, "\x00\x01\x7f\x80\xff", "ü", "\n\t\r"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, name string, quotePath bool) {
		q := string(appendCQuoted(nil, "b/", name, quotePath))
		quoted := strings.HasPrefix(q, `"`)
		if quoted != needsCQuote(name, quotePath) {
			t.Fatalf("%q: quoted=%v, needsCQuote=%v", name, quoted, !quoted)
		}
		if quotePath {
			for i := 0; i < len(q); i++ {
				if q[i] >= 0x80 || q[i] < 0x20 || q[i] == 0x7f {
					t.Fatalf("%q: quoted with quotePath holds byte %#x: %q", name, q[i], q)
				}
			}
		}
		if !quoted {
			if q != "b/"+name {
				t.Fatalf("%q: unquoted form %q", name, q)
			}
			return
		}
		got, ok := cUnquote(q)
		if !ok || got != "b/"+name {
			t.Fatalf("%q: %s unquotes to %q (ok=%v)", name, q, got, ok)
		}
		if quotePath || utf8.ValidString(name) {
			if u, err := strconv.Unquote(q); err != nil || u != "b/"+name {
				t.Fatalf("%q: strconv.Unquote(%s) = %q, %v", name, q, u, err)
			}
		}
	})
}

// cUnquote undoes C quoting as git's unquote_c_style does.
func cUnquote(q string) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	q = q[1 : len(q)-1]
	var b []byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c == '"' {
			return "", false
		}
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(q) {
			return "", false
		}
		switch c = q[i]; c {
		case 'a', 'b', 't', 'n', 'v', 'f', 'r':
			b = append(b, byte(7+strings.IndexByte("abtnvfr", c)))
		case '"', '\\':
			b = append(b, c)
		default:
			if i+2 >= len(q) || c < '0' || c > '3' {
				return "", false
			}
			n, err := strconv.ParseUint(q[i:i+3], 8, 8)
			if err != nil {
				return "", false
			}
			b = append(b, byte(n))
			i += 2
		}
	}
	return string(b), true
}
