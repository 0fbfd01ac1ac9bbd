package gateway

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/corehq/core/internal/yamlx"
)

// rowFields are the keys a row may carry, with what each holds.
var rowFields = []string{"name", "path", "method", "procedure", "grant", "exposure", "handler", "hosted", "any_origin", "loopback_peer", "prefix", "stream", "max_body", "summary"}

// decode reads the YAML strictly: the document is a list of mappings whose
// keys are rowFields with values of the right type. It walks yaml.Node
// itself (with yamlx) so that each problem keeps its row and line. Only the
// first document is read.
func decode(data []byte) ([]Row, []Problem) {
	doc, err := yamlx.NewDecoder(data).Next()
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, []Problem{{Row: -1, Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	root := yamlx.Root(doc)
	if root == nil {
		return nil, []Problem{{Row: -1, Msg: "the table is empty; it must be a list of rows"}}
	}
	if root.Kind != yaml.SequenceNode {
		return nil, []Problem{{Row: -1, Line: root.Line, Msg: "the table must be a list of rows (- name: ...), not a " + yamlx.Kind(root)}}
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
		bad(n.Line, "", "a row must be a mapping of %s, not a %s", strings.Join(rowFields, ", "), yamlx.Kind(n))
		return row, problems
	}
	// The name first, so that every later problem can carry it.
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == "name" && yamlx.Is(n.Content[j+1], "!!str") {
			row.Name = n.Content[j+1].Value
		}
	}
	// Keys are taken by their text as written, whatever their kind: the
	// route table follows no alias.
	for pr := range (yamlx.Keys{}).Pairs(n) {
		k, v := pr.Key, pr.Value
		key := k.Value
		if pr.Fault == yamlx.Duplicate {
			bad(k.Line, key, "appears twice in the row")
			continue
		}
		row.lines[key] = k.Line
		if hint, unknown := yamlx.Unknown(key, rowFields); unknown {
			bad(k.Line, key, "unknown key%s; a row may carry: %s", hint, strings.Join(rowFields, ", "))
			continue
		}
		str := func(dst *string) {
			if !yamlx.Is(v, "!!str") {
				bad(v.Line, key, "must be a string, not a %s", yamlx.Kind(v))
				return
			}
			*dst = v.Value
		}
		boolean := func(dst *bool) {
			if !yamlx.Is(v, "!!bool") {
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
		case "any_origin":
			boolean(&row.AnyOrigin)
		case "loopback_peer":
			boolean(&row.LoopbackPeer)
		case "prefix":
			boolean(&row.Prefix)
		case "max_body":
			if !yamlx.Is(v, "!!int") {
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
				if !yamlx.Is(e, "!!str") {
					bad(e.Line, key, "entries must be strings, not %s", describe(e))
					continue
				}
				row.Exposure = append(row.Exposure, e.Value)
			}
		}
	}
	return row, problems
}

// describe names what was found, the route table's way: the kind, then a
// scalar's value quoted in full (string "yes"), or "a list".
func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return fmt.Sprintf("%s %q", yamlx.Kind(n), n.Value)
	}
	return "a " + yamlx.Kind(n)
}
