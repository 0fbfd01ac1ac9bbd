package auth

import (
	"testing"
)

// FuzzDecodeTokens feeds arbitrary bytes as tokens.json (a file another
// process or a crash may have left): decodeTokens never panics, and what it
// accepts is well formed.
func FuzzDecodeTokens(f *testing.F) {
	f.Add([]byte(`{"version":1,"tokens":[{"id":"tok_0123456789ab","kind":"console","grants":["console=read"],"hash":"` + string(make64()) + `","created_at":"2026-01-01T00:00:00Z","expires_at":"2026-01-02T00:00:00Z"}]}`))
	f.Add([]byte(`{"version":2,"tokens":[]}`))
	f.Add([]byte(`{"version":1,"tokens":[{"id":"","kind":"x"}]}`))
	f.Add([]byte(``))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := decodeTokens(data)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.ID == "" || !r.Kind.valid() || len(r.Hash) != 64 || !isLowerHex(r.Hash) {
				t.Fatalf("accepted a malformed record %+v", r)
			}
			if _, err := ParseGrants(r.Grants); err != nil {
				t.Fatalf("accepted bad grants %v", r.Grants)
			}
		}
	})
}

func make64() []byte {
	b := make([]byte, 64)
	for i := range b {
		b[i] = 'a'
	}
	return b
}
