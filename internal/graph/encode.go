package graph

import (
	"cmp"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Sort orders nodes by id and edges by (source, target, kind), and removes
// duplicates: of nodes sharing an id the first one added stays; identical
// edges collapse to one.
func (g *Graph) Sort() {
	slices.SortStableFunc(g.Nodes, func(a, b Node) int { return cmp.Compare(a.ID, b.ID) })
	g.Nodes = slices.CompactFunc(g.Nodes, func(a, b Node) bool { return a.ID == b.ID })
	slices.SortFunc(g.Edges, compareEdges)
	g.Edges = slices.Compact(g.Edges)
}

func compareEdges(a, b Edge) int {
	if c := cmp.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Target, b.Target); c != 0 {
		return c
	}
	return cmp.Compare(a.Kind, b.Kind)
}

func (g *Graph) sorted() bool {
	for i := 1; i < len(g.Nodes); i++ {
		if g.Nodes[i-1].ID >= g.Nodes[i].ID {
			return false
		}
	}
	for i := 1; i < len(g.Edges); i++ {
		if compareEdges(g.Edges[i-1], g.Edges[i]) >= 0 {
			return false
		}
	}
	return true
}

// Encode returns the graph as JSON, {"nodes":[...],"edges":[...]} and a
// newline, sorted as Sort would sort it. It never modifies g (it sorts a copy
// when needed), so a cached graph can be encoded from many goroutines. The
// bytes equal encoding/json's Marshal of the sorted graph (empty lists as []
// rather than null), HTML-safe escaping included, so any client that decodes
// and re-encodes with encoding/json sees the same text.
func (g *Graph) Encode() []byte {
	if !g.sorted() {
		c := &Graph{Nodes: slices.Clone(g.Nodes), Edges: slices.Clone(g.Edges)}
		c.Sort()
		g = c
	}
	b := make([]byte, 0, 64+200*len(g.Nodes)+80*len(g.Edges))
	b = append(b, `{"nodes":[`...)
	for i := range g.Nodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendNode(b, &g.Nodes[i])
	}
	b = append(b, `],"edges":[`...)
	for i, e := range g.Edges {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"source":`...)
		b = appendString(b, e.Source)
		b = append(b, `,"target":`...)
		b = appendString(b, e.Target)
		b = append(b, `,"kind":`...)
		b = appendString(b, e.Kind)
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendNode writes the fields in struct order, leaving out what the
// struct's omitempty tags leave out.
func appendNode(b []byte, n *Node) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, n.ID)
	b = append(b, `,"kind":`...)
	b = appendString(b, n.Kind)
	b = append(b, `,"name":`...)
	b = appendString(b, n.Name)
	b = appendField(b, "path", n.Path)
	b = appendField(b, "project", n.Project)
	b = appendList(b, "command", n.Command)
	b = appendList(b, "inputs", n.Inputs)
	b = appendList(b, "outputs", n.Outputs)
	if n.Drift {
		b = append(b, `,"drift":true`...)
	}
	b = appendField(b, "description", n.Description)
	b = appendField(b, "title", n.Title)
	return append(b, '}')
}

func appendField(b []byte, key, value string) []byte {
	if value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

func appendList(b []byte, key string, values []string) []byte {
	if len(values) == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':', '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string the way encoding/json does:
// quotes, backslashes and control characters escaped (\b \f \n \r \t by
// name, the rest as \u00XX), <, > and & as \u003c \u003e \u0026, U+2028
// and U+2029 escaped, and each byte of invalid UTF-8 replaced by \ufffd.
// (strconv.Quote would write Go escapes such as \x00 and \U0001f600, which
// JSON does not have.)
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = strconv.AppendInt(b, int64(r&0xf), 16)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
