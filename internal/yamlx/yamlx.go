// Package yamlx is the strict reading of YAML nodes shared by the route
// table (gateway, routes.yaml) and the workspace file (internal/workspace,
// targets.yaml): decoding a document so that no input can take down the
// server, naming what a node is for a message, walking a mapping's pairs with
// the faults of its keys found, and the did-you-mean for an unknown key.
//
// What the keys mean, and how each problem is worded and where it is placed,
// stays with each caller: this package finds, the callers tell.
package yamlx

import (
	"bytes"
	"fmt"
	"iter"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/quote"
	"github.com/corehq/core/internal/suggest"
)

// Decoder reads the documents of one YAML input in turn.
type Decoder struct {
	dec *yaml.Decoder
}

// NewDecoder reads data.
func NewDecoder(data []byte) *Decoder {
	return &Decoder{dec: yaml.NewDecoder(bytes.NewReader(data))}
}

// Next returns the next document's node (a yaml.DocumentNode), or io.EOF
// when there is none. A panic inside the YAML library comes back as an error
// worded like the library's own ("yaml: ..."): a bad file must never take
// down a running server.
func (d *Decoder) Next() (doc *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("yaml: %v", r)
		}
	}()
	var n yaml.Node
	if err := d.dec.Decode(&n); err != nil {
		return nil, err
	}
	return &n, nil
}

// Root is the node a document holds, or nil when doc is nil or holds
// nothing. A node that is not a document is its own root.
func Root(doc *yaml.Node) *yaml.Node {
	if doc == nil || doc.Kind == 0 {
		return nil
	}
	if doc.Kind != yaml.DocumentNode {
		return doc
	}
	if len(doc.Content) == 0 {
		return nil
	}
	return doc.Content[0]
}

// Is reports whether n is a scalar whose resolved tag is tag ("!!str",
// "!!int", "!!bool", "!!null", ...).
func Is(n *yaml.Node, tag string) bool { return n.Kind == yaml.ScalarNode && n.Tag == tag }

// Kind names the kind of n in one word: "list", "mapping", "alias",
// "number", "boolean", "null", "string" (any other scalar) or "document".
func Kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int", "!!float":
			return "number"
		case "!!bool":
			return "boolean"
		case "!!null":
			return "null"
		}
		return "string"
	}
	return "document"
}

// Describe names what n is, with its value, for "must be X, found Y"
// messages: "a mapping", "a list", "nothing", "true", "the number 5", a
// string quoted (cut short when long) or "something else".
func Describe(n *yaml.Node) string {
	switch k := Kind(n); k {
	case "list", "mapping":
		return "a " + k
	case "null":
		return "nothing"
	case "boolean":
		return n.Value
	case "number":
		return "the number " + n.Value
	case "string":
		return quote.Short(n.Value)
	}
	return "something else"
}

// Fault is what is wrong with a key of a mapping.
type Fault int

const (
	// NoFault is a key to read.
	NoFault Fault = iota
	// NotPlain is a key that is a list, a mapping or an alias (with
	// Keys.Plain only).
	NotPlain
	// Merge is the merge key << (with Keys.Plain only).
	Merge
	// Duplicate is a key with the text of an earlier one, which wins.
	Duplicate
)

// Pair is one key of a mapping with its value, and what is wrong with the
// key, if anything.
type Pair struct {
	Key, Value *yaml.Node
	Fault      Fault
	First      *yaml.Node // with Duplicate, the earlier key of the same text
}

// Keys says how a mapping's keys are read.
type Keys struct {
	// Plain requires every key to be a plain scalar: a key that is not is
	// NotPlain, the merge key is Merge, and neither counts as an earlier
	// key for Duplicate. Without it a key is taken by its text, whatever
	// it is.
	Plain bool
	// Deref, when set, is applied to each key before it is judged (to
	// follow an alias). A nil result skips the pair: Deref has said why.
	Deref func(*yaml.Node) *yaml.Node
}

// Pairs yields the pairs of mapping n in file order, each with its fault.
func (k Keys) Pairs(n *yaml.Node) iter.Seq[Pair] {
	return func(yield func(Pair) bool) {
		seen := make(map[string]*yaml.Node)
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := Pair{Key: n.Content[i], Value: n.Content[i+1]}
			if k.Deref != nil {
				if p.Key = k.Deref(p.Key); p.Key == nil {
					continue
				}
			}
			switch first, dup := seen[p.Key.Value]; {
			case k.Plain && p.Key.Kind != yaml.ScalarNode:
				p.Fault = NotPlain
			case k.Plain && p.Key.Tag == "!!merge":
				p.Fault = Merge
			case dup:
				p.Fault, p.First = Duplicate, first
			default:
				seen[p.Key.Value] = p.Key
			}
			if !yield(p) {
				return
			}
		}
	}
}

// Unknown reports whether key is none of allowed and, if it is not, the
// did-you-mean for the closest allowed key: ` (did you mean "x"?)`, or ""
// when none is close.
func Unknown(key string, allowed []string) (hint string, unknown bool) {
	if slices.Contains(allowed, key) {
		return "", false
	}
	return suggest.DidYouMean(key, allowed), true
}
