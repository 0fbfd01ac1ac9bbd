package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	toolv1alpha1 "github.com/corehq/core/proto/gen/core/tool/v1alpha1"
)

// TestErrorsQuoteInputShort: a reply never echoes more than a short prefix
// of what the client sent (a 1 GB spell name once made a 1 GB error).
func TestErrorsQuoteInputShort(t *testing.T) {
	ws := demoWorkspace(t)
	huge := strings.Repeat("z", 1<<20)
	check := func(t *testing.T, msg string) {
		t.Helper()
		if len(msg) > 2<<10 || !strings.Contains(msg, "zzzz") {
			t.Errorf("a %d-byte message (it must quote a short prefix):\n%.300s", len(msg), msg)
		}
	}
	t.Run("RunTool with an unknown spell", func(t *testing.T) {
		_, err := (&toolService{b: backendOf(ws)}).RunTool(context.Background(), &toolv1alpha1.RunToolRequest{Name: huge})
		if err == nil {
			t.Fatal("ran")
		}
		check(t, err.Error())
	})
	t.Run("diff/run with an unknown target", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/diff/run", strings.NewReader(`{"target":"`+huge+`"}`))
		a := serve(t, diffRunHandler(backendOf(ws)), r)
		if a.Code != http.StatusBadRequest {
			t.Fatalf("status %d", a.Code)
		}
		check(t, a.message())
	})
	t.Run("diff/run with an unknown field", func(t *testing.T) {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/diff/run", strings.NewReader(`{"`+huge+`":1}`))
		a := serve(t, diffRunHandler(backendOf(ws)), r)
		if a.Code != http.StatusBadRequest {
			t.Fatalf("status %d", a.Code)
		}
		check(t, a.message())
	})
	t.Run("the graph route with an unknown parameter", func(t *testing.T) {
		a := serve(t, graphHandler(backendOf(ws)), httptest.NewRequest(http.MethodGet, "/api/v1/graph?"+huge+"=1", nil))
		check(t, a.message())
	})
	t.Run("a query with an unknown term", func(t *testing.T) {
		a := serve(t, graphHandler(backendOf(ws)), httptest.NewRequest(http.MethodGet, "/api/v1/graph?select=x:"+huge, nil))
		check(t, a.message())
	})
}
