package diff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/quote"
)

// Bounds of the context of a symbol.
const (
	MaxCallers       = 20  // callers shown; CallersTotal says how many there are
	ContextLines     = 3   // lines shown before and after a caller's line
	MaxDefinition    = 40  // lines of a definition shown
	MaxSnippetColumn = 240 // bytes of a line shown (cut on a rune boundary)
)

// Errors of ReadContext, which the route answers 400 and 404.
var (
	ErrNotSymbolID   = errors.New("not a symbol id: write symbol:<path>#<name>, e.g. symbol:libs/mathx/add.go#Add, as GET /api/v1/diff names them")
	ErrUnknownSymbol = errors.New("no such symbol in the working tree")
)

// Context is the body of GET /api/v1/diff/context: a symbol's definition
// and the places that use it, each a bounded snippet.
type Context struct {
	Symbol       ContextSymbol `json:"symbol"`
	Definition   Snippet       `json:"definition"`
	Callers      []Snippet     `json:"callers"`
	CallersTotal int           `json:"callers_total"`
	CallersCap   int           `json:"callers_cap"`
	LinesAround  int           `json:"lines_around"`
}

// ContextSymbol names the symbol.
type ContextSymbol struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Project string `json:"project,omitempty"`
	Line    int    `json:"line"`
	EndLine int    `json:"end_line"`
}

// Snippet is some lines of a file: Lines[0] is line Start.
type Snippet struct {
	Path    string   `json:"path"`
	Project string   `json:"project,omitempty"`
	Start   int      `json:"start"`
	Line    int      `json:"line"` // the line of interest
	Lines   []string `json:"lines"`
	// Truncated says lines were left out (a definition over MaxDefinition)
	// or cut (over MaxSnippetColumn bytes).
	Truncated bool `json:"truncated,omitempty"`
	// Sites are, for a caller, the lines of the file that name the symbol
	// as a word (outside its own definition), at most MaxSites; Line is
	// the first.
	Sites []int `json:"sites,omitempty"`
}

// MaxSites bounds the call sites listed of one file.
const MaxSites = 20

// callSites are the lines (from 1) of a file that name word as a whole
// word; in the defining file (self) the definition's own lines are left
// out.
func callSites(lines [][]byte, word string, self bool, defStart, defEnd int) []int {
	var sites []int
	for i, l := range lines {
		if self && i+1 >= defStart && i+1 <= defEnd {
			continue
		}
		if hasWord(l, word) {
			if sites = append(sites, i+1); len(sites) == MaxSites {
				break
			}
		}
	}
	return sites
}

// hasWord reports whether line holds word with no identifier character
// on either side.
func hasWord(line []byte, word string) bool {
	for off := 0; ; {
		i := bytes.Index(line[off:], []byte(word))
		if i < 0 {
			return false
		}
		i += off
		end := i + len(word)
		if (i == 0 || !identByte(line[i-1])) && (end == len(line) || !identByte(line[end])) {
			return true
		}
		off = i + 1
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// ReadContext finds the symbol id names in the working tree and the files
// that reference it (from the index).
func ReadContext(ctx context.Context, s IndexSymbols, id string) (Context, error) {
	file, name, src, err := findSymbolFile(s.Root, id)
	if err != nil {
		return Context{}, err
	}
	var def *span
	for _, sp := range spans(index.LangOf(file), file, src) {
		if sp.sym.Name == name {
			def = &sp
			break
		}
	}
	if def == nil {
		return Context{}, fmt.Errorf("%w: %s declares no %s", ErrUnknownSymbol, quote.Short(file), quote.Short(name))
	}
	owner := func(p string) string {
		if s.Owner == nil {
			return ""
		}
		return s.Owner(p)
	}
	lines := bytes.Split(src, []byte("\n"))
	defEnd := min(def.end, def.start+MaxDefinition-1)
	c := Context{
		Symbol:      ContextSymbol{ID: index.SymbolID(file, name), Name: name, Kind: def.sym.Kind, Path: file, Project: owner(file), Line: def.start, EndLine: def.end},
		Definition:  snippet(file, owner(file), lines, def.start, def.start, defEnd),
		Callers:     []Snippet{},
		CallersCap:  MaxCallers,
		LinesAround: ContextLines,
	}
	c.Definition.Truncated = c.Definition.Truncated || defEnd < def.end
	refs, err := s.referrers([]string{name})
	if err != nil {
		return Context{}, err
	}
	from := refs[c.Symbol.ID]
	c.CallersTotal = len(from)
	word := name[strings.LastIndexByte(name, '.')+1:]
	for _, p := range from[:min(len(from), MaxCallers)] {
		if err := ctx.Err(); err != nil {
			return Context{}, err
		}
		csrc, err := readBounded(s.Root, p)
		if err != nil {
			continue // gone since the index saw it
		}
		cl := bytes.Split(csrc, []byte("\n"))
		sites := callSites(cl, word, p == file, def.start, def.end)
		at := 1
		if len(sites) > 0 {
			at = sites[0]
		}
		sn := snippet(p, owner(p), cl, at, at-ContextLines, at+ContextLines)
		sn.Sites = sites
		c.Callers = append(c.Callers, sn)
	}
	return c, nil
}

// findSymbolFile splits id into a file of the working tree and a name: a
// '#' may be in the path as well as in the name, so the path is the first
// prefix before a '#' that is a regular file inside root.
func findSymbolFile(root, id string) (file, name string, src []byte, err error) {
	rest, ok := strings.CutPrefix(id, "symbol:")
	if !ok || !strings.Contains(rest, "#") || len(id) > 4096 || !utf8.ValidString(id) {
		return "", "", nil, ErrNotSymbolID
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] != '#' {
			continue
		}
		p, n := rest[:i], rest[i+1:]
		if p == "" || n == "" || !filepath.IsLocal(filepath.FromSlash(p)) || strings.Contains(p, "\\") {
			continue
		}
		if data, err := readBounded(root, p); err == nil {
			return p, n, data, nil
		}
	}
	if p, _, _ := strings.Cut(rest, "#"); p == "" || !filepath.IsLocal(filepath.FromSlash(p)) {
		return "", "", nil, ErrNotSymbolID
	}
	return "", "", nil, fmt.Errorf("%w: no file of the working tree is named by %s", ErrUnknownSymbol, quote.Short(id))
}

// snippet is lines from..to (1-based, clamped) of a file.
func snippet(p, project string, lines [][]byte, at, from, to int) Snippet {
	from, to = max(from, 1), min(to, len(lines))
	sn := Snippet{Path: p, Project: project, Start: from, Line: at, Lines: []string{}}
	for i := from; i <= to; i++ {
		l := bytes.TrimSuffix(lines[i-1], []byte("\r"))
		if len(l) > MaxSnippetColumn {
			cut := MaxSnippetColumn
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			l, sn.Truncated = l[:cut], true
		}
		sn.Lines = append(sn.Lines, string(l))
	}
	return sn
}
