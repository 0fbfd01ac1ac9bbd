package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"example.com/demo/services/auth"
)

func TestInvoiceNeedsAToken(t *testing.T) {
	s := &server{secret: []byte("s"), now: time.Now}
	for name, header := range map[string]string{
		"no token":    "",
		"valid token": "Bearer " + auth.Issue("ada", []byte("s"), time.Now(), time.Hour),
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/api/invoices/1", nil)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		s.routes().ServeHTTP(rec, req)
		want := http.StatusOK
		if header == "" {
			want = http.StatusUnauthorized
		}
		if rec.Code != want {
			t.Errorf("%s: status %d, want %d", name, rec.Code, want)
		}
	}
}
