package forge

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Bounds of the conditional-request cache.
const (
	cacheEntries  = 512     // responses kept
	cacheBytes    = 8 << 20 // their bodies, in all
	cacheEntryMax = 2 << 20 // a larger body is passed on, not kept
)

// revalidated marks a response the cache rebuilt from a 304.
const revalidated = "X-Core-Revalidated"

// condCache is the http.RoundTripper under go-github that makes repeated
// GETs conditional: it keeps the body and headers of each 200 that carried
// an ETag (or Last-Modified), sends If-None-Match (If-Modified-Since) the
// next time, and turns GitHub's 304, which does not count against the rate
// limit, back into the 200 it kept. Entries are keyed by URL, Accept, API
// version and a hash of the Authorization header (GitHub varies on it), and
// bounded in number and bytes, the least recently used going first.
type condCache struct {
	next http.RoundTripper

	mu      sync.Mutex
	entries map[string]*list.Element
	lru     list.List // of *cached, most recent at the front
	bytes   int
}

type cached struct {
	key          string
	etag, lastMo string
	header       http.Header
	body         []byte
}

func newCondCache(next http.RoundTripper) *condCache {
	if next == nil {
		next = http.DefaultTransport
	}
	return &condCache{next: next, entries: map[string]*list.Element{}}
}

func cacheKey(r *http.Request) string {
	h := sha256.New()
	for _, s := range []string{r.URL.String(), r.Header.Get("Accept"), r.Header.Get("X-GitHub-Api-Version"), r.Header.Get("Authorization")} {
		_, _ = io.WriteString(h, s)
		_, _ = h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// RoundTrip implements http.RoundTripper.
func (c *condCache) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet || r.Header.Get("Range") != "" {
		return c.next.RoundTrip(r)
	}
	key := cacheKey(r)
	e := c.get(key)
	if e != nil {
		r = r.Clone(r.Context())
		if e.etag != "" {
			r.Header.Set("If-None-Match", e.etag)
		} else {
			r.Header.Set("If-Modified-Since", e.lastMo)
		}
	}
	resp, err := c.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && e != nil:
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		h := e.header.Clone()
		// The 304 carries the current rate limit and date; keep the rest.
		for k, v := range resp.Header {
			h[k] = v
		}
		h.Set(revalidated, "true")
		h.Set("Content-Length", strconv.Itoa(len(e.body)))
		return &http.Response{
			Status: "200 OK", StatusCode: http.StatusOK,
			Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			Header: h, Body: io.NopCloser(bytes.NewReader(e.body)),
			ContentLength: int64(len(e.body)), Request: r,
		}, nil
	case resp.StatusCode == http.StatusOK && (resp.Header.Get("ETag") != "" || resp.Header.Get("Last-Modified") != ""):
		buf, err := io.ReadAll(io.LimitReader(resp.Body, cacheEntryMax+1))
		if err != nil {
			_ = resp.Body.Close()
			return nil, err
		}
		if len(buf) > cacheEntryMax {
			resp.Body = struct {
				io.Reader
				io.Closer
			}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
			return resp, nil
		}
		_ = resp.Body.Close()
		c.put(&cached{key: key, etag: resp.Header.Get("ETag"), lastMo: resp.Header.Get("Last-Modified"), header: resp.Header.Clone(), body: buf})
		resp.Body = io.NopCloser(bytes.NewReader(buf))
	}
	return resp, nil
}

func (c *condCache) get(key string) *cached {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[key]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*cached)
}

func (c *condCache) put(e *cached) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[e.key]; ok {
		c.bytes -= len(old.Value.(*cached).body)
		c.lru.Remove(old)
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.bytes += len(e.body)
	for c.lru.Len() > cacheEntries || c.bytes > cacheBytes {
		last := c.lru.Back()
		old := last.Value.(*cached)
		c.lru.Remove(last)
		delete(c.entries, old.key)
		c.bytes -= len(old.body)
	}
}

// size reports the entries and bytes kept (tests).
func (c *condCache) size() (int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
