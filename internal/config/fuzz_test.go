package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes as the user's config file: Load never
// panics, and every refusal is an *Error that lists its problems.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"mcp:\n  address: 127.0.0.1:0\n",
		"concurrency: 3\nlog:\n  level: debug\n",
		"console: {enabled: false, hosted_origin: \"https://c.example\"}\n",
		"bogus: 1\n",
		"concurrency: lots\n",
		"server:\n  max_body: -1\n",
		"- a\n- b\n",
		"a: &x [*x]\n",
		"\x00\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(Sources{UserFile: path, Environ: []string{}})
		if err == nil {
			if cfg == nil {
				t.Fatal("no error and no config")
			}
			return
		}
		var ce *Error
		if !errors.As(err, &ce) || len(ce.Problems) == 0 {
			t.Fatalf("%q: %v is not an *Error with problems", data, err)
		}
	})
}
