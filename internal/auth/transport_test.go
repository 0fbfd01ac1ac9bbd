package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestTransport(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("Authorization")
	}))
	defer srv.Close()
	send := func(token string) *http.Request {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		resp, err := (&http.Client{Transport: Transport{Token: token}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return req
	}
	t.Run("the token goes in the Authorization header as a bearer", func(t *testing.T) {
		req := send("core_console_x")
		if got != "Bearer core_console_x" {
			t.Errorf("Authorization = %q", got)
		}
		if req.Header.Get("Authorization") != "" {
			t.Error("the caller's request was changed")
		}
	})
	t.Run("an empty token sends no header", func(t *testing.T) {
		send("")
		if got != "" {
			t.Errorf("Authorization = %q", got)
		}
	})
}
