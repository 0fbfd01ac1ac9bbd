// Package gateway turns routes.yaml into listeners. It loads and checks the
// route table (every problem reported at once, deny by default), builds one
// mux per listener from only the rows exposed on it, and wraps each mux in
// the request pipeline, in the order ServeHTTP fixes. Handlers are looked up by
// the names the table gives them; code only registers them.
package gateway

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/corehq/core/internal/auth"
)

// Exposures a row may list.
const (
	ExposureLoopback = "loopback"
	ExposureShare    = "share"
)

// GrantNone is how a row that needs no token says so: it is written out,
// never implied, because a row without a grant is an error. Every other
// grant is auth's, parsed when the table loads.
const GrantNone = "none"

// grantChoices is what a row's grant may say, sorted, for messages.
var grantChoices = slices.Sorted(slices.Values(append(auth.GrantNames(), GrantNone)))

// Row is one line of the route table.
type Row struct {
	Index int // position in the file, from 0
	Line  int

	Name      string
	Path      string // for Connect rows, "/" + Procedure
	Method    string // GET or POST; Connect rows are POST
	Procedure string // "core.<svc>.v1alpha1.<Service>/<Method>" for Connect rows
	// Grant is what a token needs to call the row; auth.None on rows that
	// need no token ("grant: none").
	Grant    auth.Grant
	Exposure []string
	Handler  string

	// Hosted rows also accept the hosted console's host and origin.
	Hosted bool
	// AnyOrigin rows have no Host guard and no Origin check and answer any
	// origin's CORS preflight: the bearer token alone guards them. The spec
	// asks this of /mcp, and a load rule allows it there alone.
	AnyOrigin bool
	// LoopbackPeer rows also require the TCP peer to be a loopback address.
	LoopbackPeer bool
	// Prefix rows serve the subtree under Path (which ends in "/").
	Prefix bool
	// Stream names a streaming protocol ("sse"): only GET rows may stream,
	// and their request is logged when the stream ends, like any other.
	Stream string
	// MaxBody caps the request body in bytes; 0 takes the server default.
	MaxBody int64
	// Summary says what the row is for, in the exposure matrix.
	Summary string

	grant string         // as written, until checkRows parses it into Grant
	lines map[string]int // the line of each key, for problems
}

// Public reports whether the row needs no token.
func (r *Row) Public() bool { return r.Grant == auth.None }

// lineOf is the line of a field of the row, or the row's own line.
func (r *Row) lineOf(field string) int {
	if l, ok := r.lines[field]; ok {
		return l
	}
	return r.Line
}

// Exposed reports whether the row is served on the listener of exposure e.
func (r *Row) Exposed(e string) bool { return slices.Contains(r.Exposure, e) }

// IsConsole reports whether the row belongs to the console surface, which
// console.enabled=false and a non-loopback bind remove: the /api/ bridge and
// the console's pages.
func (r *Row) IsConsole() bool {
	return strings.HasPrefix(r.Path, "/api/") || strings.HasPrefix(r.Path, "/console/")
}

// Table is a checked route table.
type Table struct {
	Rows []Row
}

// Problem is one thing wrong with the table.
type Problem struct {
	Row   int // -1 when the problem is not about one row
	Name  string
	Line  int
	Field string
	Msg   string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Row >= 0 {
		if p.Name != "" {
			fmt.Fprintf(&b, "row %d (%s): ", p.Row, p.Name)
		} else {
			fmt.Fprintf(&b, "row %d: ", p.Row)
		}
	}
	if p.Field != "" {
		b.WriteString(p.Field + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// LoadError lists every problem of a route table.
type LoadError struct {
	File     string
	Problems []Problem
}

func (e *LoadError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.File + ": " + p.String()
	}
	return strings.Join(lines, "\n")
}

// Load parses and checks a route table against the handlers of reg. Every
// problem is reported, each naming its row by index and name; nothing is
// skipped.
func Load(file string, data []byte, reg *Registry) (*Table, error) {
	rows, problems := decode(data)
	problems = append(problems, checkRows(rows)...)
	if reg != nil {
		problems = append(problems, reg.check(rows)...)
	}
	if len(problems) > 0 {
		sort.SliceStable(problems, func(i, j int) bool { return problems[i].Row < problems[j].Row })
		return nil, &LoadError{File: file, Problems: problems}
	}
	return &Table{Rows: rows}, nil
}

// Row returns the row called name.
func (t *Table) Row(name string) (*Row, bool) {
	for i := range t.Rows {
		if t.Rows[i].Name == name {
			return &t.Rows[i], true
		}
	}
	return nil, false
}

// Select returns the rows exposed on the listener of exposure e for which
// keep (if any) holds, in table order.
func (t *Table) Select(e string, keep func(*Row) bool) []Row {
	var out []Row
	for i := range t.Rows {
		r := &t.Rows[i]
		if r.Exposed(e) && (keep == nil || keep(r)) {
			out = append(out, *r)
		}
	}
	return out
}
