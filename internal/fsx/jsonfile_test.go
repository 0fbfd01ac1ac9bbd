package fsx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadJSON(t *testing.T) {
	type doc struct {
		N    int      `json:"n"`
		List []string `json:"list"`
	}
	for _, tc := range []struct {
		name      string
		content   *string
		want      doc
		wantAside bool
	}{
		{"a missing file leaves the value empty", nil, doc{}, false},
		{"a good file decodes", ptr(`{"n":3,"list":["a"]}`), doc{N: 3, List: []string{"a"}}, false},
		{"a file that does not decode is set aside and leaves nothing behind", ptr(`{"list":["a"],"n":"x"}`), doc{}, true},
		{"a file over the limit is set aside", ptr(`{"n":1,"list":["` + strings.Repeat("a", 200) + `"]}`), doc{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			if tc.content != nil {
				if err := os.WriteFile(path, []byte(*tc.content), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var got doc
			aside, err := LoadJSON(path, 100, &got)
			if err != nil {
				t.Fatal(err)
			}
			if (aside != "") != tc.wantAside || got.N != tc.want.N || len(got.List) != len(tc.want.List) {
				t.Fatalf("got %+v aside %q", got, aside)
			}
			if aside != "" {
				if _, err := os.Stat(aside); err != nil {
					t.Errorf("the bytes are not kept: %v", err)
				}
				if _, err := os.Stat(path); !os.IsNotExist(err) {
					t.Errorf("the damaged file is still in place")
				}
			}
		})
	}
}

func ptr(s string) *string { return &s }
