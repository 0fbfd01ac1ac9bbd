package gateway

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/suggest"
)

// rowFields are the keys a row may carry, with what each holds.
var rowFields = []string{"name", "path", "method", "procedure", "grant", "exposure", "handler", "hosted", "loopback_peer", "prefix", "stream", "max_body", "summary"}

// decode reads the YAML strictly: the document is a list of mappings whose
// keys are rowFields with values of the right type. It walks yaml.Node
// itself so that each problem keeps its row and line.
func decode(data []byte) ([]Row, []Problem) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, []Problem{{Row: -1, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, []Problem{{Row: -1, Msg: "the table is empty; it must be a list of rows"}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.SequenceNode {
		return nil, []Problem{{Row: -1, Line: root.Line, Msg: "the table must be a list of rows (- name: ...), not a " + kindName(root)}}
	}
	var rows []Row
	var problems []Problem
	for i, n := range root.Content {
		row, ps := decodeRow(i, n)
		rows = append(rows, row)
		problems = append(problems, ps...)
	}
	return rows, problems
}

func decodeRow(i int, n *yaml.Node) (Row, []Problem) {
	row := Row{Index: i, Line: n.Line, lines: map[string]int{}}
	var problems []Problem
	bad := func(line int, field, format string, args ...any) {
		problems = append(problems, Problem{Row: i, Name: row.Name, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if n.Kind != yaml.MappingNode {
		bad(n.Line, "", "a row must be a mapping of %s, not a %s", strings.Join(rowFields, ", "), kindName(n))
		return row, problems
	}
	// The name first, so that every later problem can carry it.
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == "name" && isStr(n.Content[j+1]) {
			row.Name = n.Content[j+1].Value
		}
	}
	seen := map[string]bool{}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		key := k.Value
		if seen[key] {
			bad(k.Line, key, "appears twice in the row")
			continue
		}
		seen[key] = true
		row.lines[key] = k.Line
		str := func(dst *string) {
			if !isStr(v) {
				bad(v.Line, key, "must be a string, not a %s", kindName(v))
				return
			}
			*dst = v.Value
		}
		boolean := func(dst *bool) {
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
				bad(v.Line, key, "must be true or false, not %s", describe(v))
				return
			}
			*dst = v.Value == "true"
		}
		switch key {
		case "name":
			str(&row.Name)
		case "path":
			str(&row.Path)
		case "method":
			str(&row.Method)
		case "procedure":
			str(&row.Procedure)
		case "grant":
			str(&row.grant)
		case "handler":
			str(&row.Handler)
		case "stream":
			str(&row.Stream)
		case "summary":
			str(&row.Summary)
		case "hosted":
			boolean(&row.Hosted)
		case "loopback_peer":
			boolean(&row.LoopbackPeer)
		case "prefix":
			boolean(&row.Prefix)
		case "max_body":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!int" {
				bad(v.Line, key, "must be a whole number of bytes, not %s", describe(v))
				continue
			}
			nb, err := strconv.ParseInt(v.Value, 0, 64)
			if err != nil || nb <= 0 {
				bad(v.Line, key, "must be a positive number of bytes, not %s", v.Value)
				continue
			}
			row.MaxBody = nb
		case "exposure":
			if v.Kind != yaml.SequenceNode {
				bad(v.Line, key, "must be a list such as [loopback] or [loopback, share], not %s", describe(v))
				continue
			}
			row.Exposure = []string{}
			for _, e := range v.Content {
				if !isStr(e) {
					bad(e.Line, key, "entries must be strings, not %s", describe(e))
					continue
				}
				row.Exposure = append(row.Exposure, e.Value)
			}
		default:
			bad(k.Line, key, "unknown key%s; a row may carry: %s", suggest.DidYouMean(key, rowFields), strings.Join(rowFields, ", "))
		}
	}
	return row, problems
}

func isStr(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!str" }

func kindName(n *yaml.Node) string {
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

func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s %q", kindName(n), n.Value)
	}
	return "a " + kindName(n)
}
