package handlers

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/corehq/core/internal/apierr"
)

func TestDecodeStrict(t *testing.T) {
	cases := []struct {
		body, want string
	}{
		{`{"target":"api:build"}`, ""},
		{``, "empty"},
		{`   `, "empty"},
		{`{"target":"api:build","argv":["rm"]}`, `unknown field "argv"`},
		{`{"target":`, "ends before"},
		{`{"target":1}`, `field "target" must be a string`},
		{`{"target":"a:b"} {"target":"c:d"}`, "more than one JSON value"},
		{`[1,2]`, "must be a"},
		{`{"target":"a:b"}x`, "more than one JSON value"},
	}
	for _, c := range cases {
		_, err := decodeStrict[runRequest](strings.NewReader(c.body))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.body, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: error %v, want it to say %q", c.body, err, c.want)
		}
	}
}

// FuzzDecodeStrict feeds arbitrary bodies to the diff/run decoder: it never
// panics, and every refusal is a 400 that the error writer can answer.
func FuzzDecodeStrict(f *testing.F) {
	for _, s := range []string{`{"target":"api:build"}`, `{"target":`, `{"target":"a","x":1}`, `[]`, `null`, "\x00"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, err := decodeStrict[runRequest](strings.NewReader(string(body)))
		if err == nil {
			return
		}
		var e *apierr.Error
		if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
			t.Fatalf("%q: %v is not a 400", body, err)
		}
	})
}
