package yamlx

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// document decodes src, which must hold a document.
func document(t *testing.T, src string) *yaml.Node {
	t.Helper()
	doc, err := NewDecoder([]byte(src)).Next()
	if err != nil {
		t.Fatalf("decoding %q: %v", src, err)
	}
	return doc
}

func TestKindAndDescribe(t *testing.T) {
	long := strings.Repeat("é", 61)
	cases := []struct {
		name, src      string
		pick           func(doc *yaml.Node) *yaml.Node // the node to name; Root if nil
		kind, describe string
	}{
		{name: "an_integer_is_a_number", src: "5", kind: "number", describe: "the number 5"},
		{name: "a_float_is_a_number", src: "1.5", kind: "number", describe: "the number 1.5"},
		{name: "a_quoted_number_is_a_string", src: `"5"`, kind: "string", describe: `"5"`},
		{name: "a_boolean_is_described_by_its_value", src: "true", kind: "boolean", describe: "true"},
		{name: "a_null_is_described_as_nothing", src: "~", kind: "null", describe: "nothing"},
		{name: "a_custom_tag_reads_as_a_string", src: "!thing bar", kind: "string", describe: `"bar"`},
		{name: "a_long_string_is_cut_short_at_60_characters", src: long, kind: "string", describe: `"` + long[:120] + `"...`},
		{name: "a_sequence_is_a_list", src: "[a]", kind: "list", describe: "a list"},
		{name: "a_mapping_is_a_mapping", src: "{a: 1}", kind: "mapping", describe: "a mapping"},
		{name: "an_alias_is_something_else", src: "[&x 1, *x]", pick: func(d *yaml.Node) *yaml.Node { return Root(d).Content[1] }, kind: "alias", describe: "something else"},
		{name: "a_document_is_something_else", src: "1", pick: func(d *yaml.Node) *yaml.Node { return d }, kind: "document", describe: "something else"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pick := c.pick
			if pick == nil {
				pick = Root
			}
			n := pick(document(t, c.src))
			if got := Kind(n); got != c.kind {
				t.Errorf("Kind = %q, want %q", got, c.kind)
			}
			if got := Describe(n); got != c.describe {
				t.Errorf("Describe = %q, want %q", got, c.describe)
			}
		})
	}
}

// followAlias is a Deref that follows one alias.
func followAlias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return n.Alias
	}
	return n
}

func TestPairs(t *testing.T) {
	faults := map[Fault]string{NoFault: "", NotPlain: " not plain", Merge: " merge", Duplicate: " duplicate"}
	cases := []struct {
		name, src string
		keys      Keys
		want      string // each pair as key[ fault][ of line N], in order
	}{
		{name: "pairs_come_in_file_order", src: "{b: 1, a: 2}", want: "b, a"},
		{name: "a_repeated_key_is_a_duplicate_of_the_first", src: "a: 1\nb: 2\na: 3\n", want: "a, b, a duplicate of line 1"},
		{name: "without_plain_a_merge_key_is_read_by_its_text", src: "{<<: {x: 1}, <<: {y: 2}}", want: "<<, << duplicate of line 1"},
		{name: "with_plain_merge_keys_are_faults_not_duplicates", src: "{<<: {x: 1}, <<: {y: 2}}", keys: Keys{Plain: true}, want: "<< merge, << merge"},
		{name: "with_plain_a_list_key_is_not_plain", src: "{[a]: 1, b: 2}", keys: Keys{Plain: true}, want: " not plain, b"},
		{name: "without_plain_an_alias_key_is_read_by_its_anchor_name", src: "{&k a: 1, *k : 2}", want: "a, k"},
		{name: "with_deref_an_alias_key_is_the_key_it_names", src: "{&k a: 1, *k : 2}", keys: Keys{Plain: true, Deref: followAlias}, want: "a, a duplicate of line 1"},
		{name: "a_key_deref_drops_is_skipped", src: "{&k a: 1, *k : 2, b: 3}", keys: Keys{Deref: func(n *yaml.Node) *yaml.Node {
			if n.Kind == yaml.AliasNode {
				return nil
			}
			return n
		}}, want: "a, b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for p := range c.keys.Pairs(Root(document(t, c.src))) {
				s := p.Key.Value + faults[p.Fault]
				if p.First != nil {
					s += fmt.Sprintf(" of line %d", p.First.Line)
				}
				got = append(got, s)
			}
			if g := strings.Join(got, ", "); g != c.want {
				t.Errorf("pairs = %q, want %q", g, c.want)
			}
		})
	}
}

func TestUnknown(t *testing.T) {
	allowed := []string{"grant", "name", "path"}
	cases := []struct {
		name, key, hint string
		unknown         bool
	}{
		{name: "an_allowed_key_is_known", key: "grant"},
		{name: "a_near_miss_gets_a_did_you_mean", key: "grnat", hint: ` (did you mean "grant"?)`, unknown: true},
		{name: "a_far_miss_gets_no_hint", key: "zzzzzz", unknown: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hint, unknown := Unknown(c.key, allowed)
			if hint != c.hint || unknown != c.unknown {
				t.Errorf("Unknown(%q) = %q, %v; want %q, %v", c.key, hint, unknown, c.hint, c.unknown)
			}
		})
	}
}

// panicReader makes the YAML library panic from inside Decode.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("reader exploded") }

func TestDecoder(t *testing.T) {
	next := func(src string, n int) (docs []*yaml.Node, err error) {
		d := NewDecoder([]byte(src))
		for range n {
			doc, err := d.Next()
			if err != nil {
				return docs, err
			}
			docs = append(docs, doc)
		}
		return docs, nil
	}
	t.Run("an_empty_input_has_no_document", func(t *testing.T) {
		for _, src := range []string{"", "# only a comment\n"} {
			if docs, err := next(src, 1); !errors.Is(err, io.EOF) {
				t.Errorf("%q: got %d documents, error %v; want io.EOF", src, len(docs), err)
			}
		}
	})
	t.Run("each_document_is_read_in_turn_then_io_EOF", func(t *testing.T) {
		docs, err := next("a: 1\n---\nb: 2\n", 3)
		if !errors.Is(err, io.EOF) || len(docs) != 2 {
			t.Fatalf("got %d documents, error %v; want 2 then io.EOF", len(docs), err)
		}
		if docs[1].Kind != yaml.DocumentNode || docs[1].Line != 2 {
			t.Errorf("second document: kind %v at line %d, want a document at the --- on line 2", docs[1].Kind, docs[1].Line)
		}
	})
	t.Run("a_syntax_error_is_the_librarys_error", func(t *testing.T) {
		_, err := next("- [unclosed\n", 1)
		if err == nil || err.Error() != "yaml: line 1: did not find expected ',' or ']'" {
			t.Errorf("error %v", err)
		}
	})
	t.Run("a_panic_inside_the_library_comes_back_as_an_error", func(t *testing.T) {
		d := &Decoder{dec: yaml.NewDecoder(panicReader{})}
		doc, err := d.Next()
		if doc != nil || err == nil || err.Error() != "yaml: reader exploded" {
			t.Errorf("got %v, %v; want the panic as an error", doc, err)
		}
	})
	t.Run("an_explicit_empty_document_holds_a_null", func(t *testing.T) {
		docs, err := next("---\n", 1)
		if err != nil || !Is(Root(docs[0]), "!!null") {
			t.Errorf("got %v, %v; want a document holding null", docs, err)
		}
	})
	t.Run("no_document_has_no_root", func(t *testing.T) {
		if Root(nil) != nil || Root(&yaml.Node{Kind: yaml.DocumentNode}) != nil {
			t.Error("Root of nothing is not nil")
		}
	})
}

// FuzzDecoder checks that no input makes reading and walking its documents
// panic, and that what Pairs reports agrees with the keys it reports on.
func FuzzDecoder(f *testing.F) {
	for _, s := range []string{
		"", "a: 1\n", "a: 1\n---\nb: 2\n", "- [unclosed\n", "a:\n\t- b\n",
		"{&k a: 1, *k : 2, a: 3}\n", "<<: {x: 1}\n<<: *x\n", "? [a, b]\n: c\n",
		"&a [*a]\n", "x: &x {y: *x}\n", "!thing 5\n", "%YAML 1.1\n---\na: yes\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d := NewDecoder(data)
		for {
			doc, err := d.Next()
			if err != nil {
				return
			}
			if doc == nil || doc.Kind != yaml.DocumentNode {
				t.Fatalf("Next returned %v without an error", doc)
			}
			walk(t, doc)
		}
	})
}

func walk(t *testing.T, n *yaml.Node) {
	if Kind(n) == "" || Describe(n) == "" {
		t.Fatalf("a node without a name: %+v", n)
	}
	if n.Kind == yaml.MappingNode {
		for _, keys := range []Keys{{}, {Plain: true, Deref: followAlias}} {
			count := 0
			for p := range keys.Pairs(n) {
				count++
				switch p.Fault {
				case Duplicate:
					if p.First == nil || p.First.Value != p.Key.Value {
						t.Fatalf("duplicate %q without its first", p.Key.Value)
					}
				case NotPlain:
					if p.Key.Kind == yaml.ScalarNode {
						t.Fatalf("scalar key %q reported as not plain", p.Key.Value)
					}
				}
			}
			if count != len(n.Content)/2 {
				t.Fatalf("%d pairs for a mapping of %d nodes", count, len(n.Content))
			}
		}
	}
	for _, c := range n.Content {
		walk(t, c)
	}
}
