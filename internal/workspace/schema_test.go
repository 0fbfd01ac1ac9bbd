package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"
)

// loadSchema reads docs/targets.schema.json, the schema editors use.
func loadSchema(t *testing.T) (*jsonschema.Schema, *jsonschema.Resolved) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "targets.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &s, rs
}

// TestTheSchemaNamesTheKeysTheParserTakes keeps docs/targets.schema.json in
// step with the parser, level by level.
func TestTheSchemaNamesTheKeysTheParserTakes(t *testing.T) {
	s, _ := loadSchema(t)
	keys := func(sc *jsonschema.Schema) []string {
		var out []string
		for k := range sc.Properties {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		level  string
		schema *jsonschema.Schema
		parser []string
	}{
		{"the top level", s, rootKeys},
		{"a project", s.Defs["project"], projectKeys},
		{"a target", s.Defs["target"], targetKeys},
		{"a spell", s.Defs["spell"], spellKeys},
	} {
		if got := keys(c.schema); !slices.Equal(got, c.parser) {
			t.Errorf("%s: the schema has %v, the parser takes %v", c.level, got, c.parser)
		}
	}
}

// TestTheSchemaAcceptsTheDemoAndRefusesMistakes validates real files.
func TestTheSchemaAcceptsTheDemoAndRefusesMistakes(t *testing.T) {
	_, rs := loadSchema(t)
	check := func(name, text string, ok bool) {
		var v any
		if err := yaml.Unmarshal([]byte(text), &v); err != nil {
			t.Fatal(err)
		}
		// Through JSON, as an editor's language server sees it.
		data, _ := json.Marshal(v)
		var inst any
		_ = json.Unmarshal(data, &inst)
		if err := rs.Validate(inst); (err == nil) != ok {
			t.Errorf("%s: valid = %v, want %v (%v)", name, err == nil, ok, err)
		}
	}
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo", FileName))
	if err != nil {
		t.Fatal(err)
	}
	check("the demo", string(demo), true)
	check("an unknown target key", "projects:\n  a:\n    path: a\n    targets:\n      b:\n        run: [x]\n        cmd: y\n", false)
	check("an env value instead of a name", "projects:\n  a:\n    path: a\n    targets:\n      b:\n        run: [x]\n        env: [FOO=1]\n", false)
	check("a project without a path", "projects:\n  a:\n    targets: {}\n", false)
	check("a target without run", "projects:\n  a:\n    path: a\n    targets:\n      b: {outputs: [x]}\n", false)
	check("a target that takes its run from defaults", "defaults:\n  b: {run: [x], deps: [\"^b\"]}\nprojects:\n  a:\n    path: a\n    targets:\n      b: {outputs: [x]}\n      c:\n", true)
	check("an unknown key in a default", "defaults:\n  b: {cmd: x}\nprojects: {}\n", false)
	check("a glob that leaves the project", "projects:\n  a:\n    path: a\n    targets:\n      b:\n        run: [x]\n        inputs: [../x]\n", false)
}
