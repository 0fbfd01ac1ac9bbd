package forge

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// roundTrip sends one GET through c with the given Authorization.
func roundTrip(t *testing.T, c *condCache, url, auth string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := c.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func TestConditionalCache(t *testing.T) {
	rec := load(t, "pulls-none")
	etag := header(rec.Header).Get("ETag")
	var conditional []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if inm := r.Header.Get("If-None-Match"); inm != "" {
			conditional = append(conditional, r.URL.Path+" "+r.Header.Get("Authorization"))
			if inm == etag {
				w.Header().Set("ETag", etag)
				w.Header().Set("X-RateLimit-Remaining", "4999")
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		w.Header().Set("ETag", etag)
		w.Header().Set("X-RateLimit-Remaining", "4998")
		_, _ = w.Write(rec.Body)
	}))
	defer srv.Close()

	t.Run("a 304 comes back as the kept 200 with the new rate limit", func(t *testing.T) {
		c := newCondCache(srv.Client().Transport)
		_, first := roundTrip(t, c, srv.URL+"/a", "Bearer one")
		resp, again := roundTrip(t, c, srv.URL+"/a", "Bearer one")
		if resp.StatusCode != http.StatusOK || again != first || resp.Header.Get(revalidated) != "true" {
			t.Errorf("status %d, body %q (first %q), revalidated %q", resp.StatusCode, again, first, resp.Header.Get(revalidated))
		}
		if got := resp.Header.Get("X-RateLimit-Remaining"); got != "4999" {
			t.Errorf("rate limit remaining = %q, want the 304's", got)
		}
	})
	t.Run("another token does not revalidate the first token's answer", func(t *testing.T) {
		conditional = nil
		c := newCondCache(srv.Client().Transport)
		roundTrip(t, c, srv.URL+"/b", "Bearer one")
		roundTrip(t, c, srv.URL+"/b", "Bearer two")
		if len(conditional) != 0 {
			t.Errorf("conditional requests: %v", conditional)
		}
	})
	t.Run("a body over the entry limit is passed on whole and not kept", func(t *testing.T) {
		big := strings.Repeat("x", cacheEntryMax+10)
		bigSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("ETag", `"big"`)
			_, _ = io.WriteString(w, big)
		}))
		defer bigSrv.Close()
		c := newCondCache(bigSrv.Client().Transport)
		_, body := roundTrip(t, c, bigSrv.URL, "")
		if body != big {
			t.Errorf("body of %d bytes, want %d", len(body), len(big))
		}
		if n, _ := c.size(); n != 0 {
			t.Errorf("%d entries kept", n)
		}
	})
	t.Run("the entries stay within their bounds, the least recently used going first", func(t *testing.T) {
		c := newCondCache(srv.Client().Transport)
		for i := 0; i < cacheEntries+20; i++ {
			roundTrip(t, c, fmt.Sprintf("%s/n/%d", srv.URL, i), "")
		}
		n, b := c.size()
		if n != cacheEntries || b > cacheBytes {
			t.Errorf("%d entries, %d bytes; bounds %d and %d", n, b, cacheEntries, cacheBytes)
		}
		conditional = nil
		roundTrip(t, c, srv.URL+"/n/0", "")
		roundTrip(t, c, fmt.Sprintf("%s/n/%d", srv.URL, cacheEntries+19), "")
		if len(conditional) != 1 || !strings.HasPrefix(conditional[0], fmt.Sprintf("/n/%d", cacheEntries+19)) {
			t.Errorf("conditional requests %v, want only the most recent entry's", conditional)
		}
	})
}
