package workspace

// Reading the YAML itself: one document, syntax errors with a usable line,
// aliases under a budget, mappings with duplicate and unknown keys caught.
// yamlx finds what is wrong; this file words it for targets.yaml and places
// it at a field path. What the keys mean is in parse.go.

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/yamlx"
)

// document decodes the single YAML document and returns its root node, or
// nil after recording why there is none.
func (p *parser) document(data []byte) *yaml.Node {
	dec := yamlx.NewDecoder(data)
	doc, err := dec.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			p.at(nil, "", "the file is empty: declare your projects under a top-level projects: key")
		} else {
			p.syntax(err, data)
		}
		return nil
	}
	switch extra, err := dec.Next(); {
	case err == nil:
		p.at(extra, "", "a second YAML document starts here: %s holds exactly one document, remove the --- separator", FileName)
	case !errors.Is(err, io.EOF):
		p.syntax(err, data)
	}
	root := yamlx.Root(doc)
	if root == nil {
		p.at(doc, "", "the file is empty: declare your projects under a top-level projects: key")
	}
	return root
}

var (
	yamlLine   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+): `) })
	yamlAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:unknown anchor|anchor) '([^']*)'`) })
)

// parserProblems are the YAML library's parser (not scanner) errors. The
// library prints their line 0-based (and leaves it out for the first line),
// while scanner errors get a 1-based line.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found duplicate %TAG directive":         true,
	"found incompatible YAML document":       true,
}

func (p *parser) syntax(err error, data []byte) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine().FindStringSubmatch(msg); m != nil {
		msg = msg[len(m[0]):]
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			line = n
		}
	}
	if parserProblems[msg] {
		line++
	}
	if m := yamlAnchor().FindStringSubmatch(msg); m != nil && line == 0 {
		// Alias errors come without a position: point at the first use.
		sigil := "*"
		if strings.HasPrefix(msg, "anchor") {
			sigil = "&"
		}
		if i := bytes.Index(data, []byte(sigil+m[1])); i >= 0 {
			line = 1 + bytes.Count(data[:i], []byte("\n"))
		}
	}
	line = max(line, 1)
	if strings.Contains(msg, "cannot start any token") && bytes.Contains(lineOf(data, line), []byte("\t")) {
		msg += " (indent with spaces: YAML does not allow tabs)"
	}
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Message: "invalid YAML: " + msg})
}

func lineOf(data []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(data, '\n')
		if j < 0 {
			return nil
		}
		data = data[j+1:]
	}
	if j := bytes.IndexByte(data, '\n'); j >= 0 {
		data = data[:j]
	}
	return data
}

// deref follows an alias to its anchored node. Each expansion is charged the
// size of what it expands to; past maxExpanded it returns nil, after
// reporting once.
func (p *parser) deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		alias := n
		n = n.Alias
		p.expanded += p.size(n)
		if p.expanded > maxExpanded {
			if !p.aliasReported {
				p.aliasReported = true
				p.at(alias, "", "aliases expand to more than %d YAML nodes: use fewer anchors and aliases", maxExpanded)
			}
			return nil
		}
	}
	return n
}

// size counts the nodes under n without following aliases (an alias counts
// as one: following it is charged when it is dereferenced).
func (p *parser) size(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	if s, ok := p.sizes[n]; ok {
		return s
	}
	s := 1
	if n.Kind != yaml.AliasNode {
		for _, c := range n.Content {
			s += p.size(c)
		}
	}
	if p.sizes == nil {
		p.sizes = make(map[*yaml.Node]int)
	}
	p.sizes[n] = s
	return s
}

// scalars returns the values of a list of plain scalars, or nil when the
// list holds anything else (aliases included).
func scalars(n *yaml.Node) []string {
	var out []string
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode || isNull(c) {
			return nil
		}
		out = append(out, c.Value)
	}
	return out
}

func isNull(n *yaml.Node) bool { return yamlx.Is(n, "!!null") }

// entries lists a mapping's pairs in file order, reporting keys that are not
// plain scalars, merge keys and duplicates (the first occurrence wins).
func (p *parser) entries(n *yaml.Node, field string) []yamlx.Pair {
	var out []yamlx.Pair
	for e := range (yamlx.Keys{Plain: true, Deref: p.deref}).Pairs(n) {
		k := e.Key
		switch e.Fault {
		case yamlx.NotPlain:
			p.at(k, field, "keys must be plain names, found %s", yamlx.Describe(k))
		case yamlx.Merge:
			p.at(k, field, "merge keys (<<) are not supported in %s: write the fields out in full", FileName)
		case yamlx.Duplicate:
			p.at(k, join(field, k.Value), "duplicate key %s (first at line %d): keep one of them", quote.Short(k.Value), e.First.Line)
		default:
			out = append(out, e)
		}
	}
	return out
}

// fields is entries for a mapping with a fixed set of keys.
func (p *parser) fields(n *yaml.Node, field string, allowed []string) map[string]yamlx.Pair {
	out := make(map[string]yamlx.Pair)
	for _, e := range p.entries(n, field) {
		name := e.Key.Value
		if hint, unknown := yamlx.Unknown(name, allowed); unknown {
			p.at(e.Key, join(field, name), "unknown key %s%s; allowed: %s", quote.Short(name), hint, strings.Join(allowed, ", "))
			continue
		}
		out[name] = e
	}
	return out
}
