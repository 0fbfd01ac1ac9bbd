package fsx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

func TestDocument(t *testing.T) {
	type counter struct {
		Version int `json:"version"`
		N       int `json:"n"`
	}
	doc := func(path string, aside bool) Document[counter] {
		return Document[counter]{
			Path: path, Name: "counter file", Limit: 1 << 10, Aside: aside, Fix: "delete it",
			Zero: func() counter { return counter{Version: 1} },
			Check: func(c *counter) error {
				if c.Version != 1 {
					return errors.New("has another version")
				}
				return nil
			},
		}
	}
	write := func(t *testing.T, content string) string {
		path := filepath.Join(t.TempDir(), "c.json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name    string
		content string
		aside   bool
		want    counter
		problem string // "" when the read works
	}{
		{"a good file is read", `{"version":1,"n":3}`, false, counter{1, 3}, ""},
		{"a corrupt file is an error naming it and the fix", `{`, false, counter{}, "is corrupt"},
		{"a file that fails the check is an error saying why", `{"version":2}`, false, counter{}, "has another version: delete it"},
		{"a file over the limit is an error", `{"version":1,"pad":"` + strings.Repeat("x", 2<<10) + `"}`, false, counter{}, "over 1024 bytes"},
		{"a corrupt file is moved aside when the document says so", `{`, true, counter{Version: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := write(t, tc.content)
			got, err := doc(path, tc.aside).Read()
			if tc.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tc.problem) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want it to name %s and say %q", err, path, tc.problem)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Read = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
	t.Run("a missing file is the zero document", func(t *testing.T) {
		got, err := doc(filepath.Join(t.TempDir(), "none.json"), false).Read()
		if err != nil || got != (counter{Version: 1}) {
			t.Fatalf("Read = %+v, %v", got, err)
		}
	})
	t.Run("concurrent updates lose nothing", func(t *testing.T) {
		d := doc(filepath.Join(t.TempDir(), "sub", "c.json"), false)
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 10 {
					if err := d.Update(func(c *counter) (bool, error) { c.N++; return true, nil }); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		if got, _ := d.Read(); got.N != 80 {
			t.Errorf("n = %d, want 80", got.N)
		}
	})
	t.Run("an update that changed nothing writes nothing, and one that failed part-way writes what it changed", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "c.json")
		d := doc(path, false)
		if err := d.Update(func(c *counter) (bool, error) { c.N = 5; return false, nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a file was written: %v", err)
		}
		boom := errors.New("boom")
		if err := d.Update(func(c *counter) (bool, error) { c.N = 7; return true, boom }); !errors.Is(err, boom) {
			t.Fatalf("err = %v", err)
		}
		if got, _ := d.Read(); got.N != 7 {
			t.Errorf("n = %d, want 7", got.N)
		}
	})
}
