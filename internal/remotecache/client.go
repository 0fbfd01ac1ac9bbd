// Package remotecache is core's client of a shared build cache: Bazel's HTTP
// remote-cache protocol, which bazel-remote, BuildBuddy and nginx with
// WebDAV PUT speak. Content is addressed by its SHA-256 under {base}/cas/,
// action results under {base}/ac/, each read with GET, probed with HEAD and
// written with PUT.
//
// The client knows the protocol and nothing of targets: the runner decides
// what an action is (a target's cache key) and what its result holds (see
// internal/runner/remote.go). It checks every blob it downloads against its
// digest as the bytes arrive, so a caller never sees content the server
// corrupted, and it sorts failures into three kinds a caller acts on:
// ErrNotFound (a miss), ErrCorrupt (a miss worth a warning) and anything
// else (the server is down, slow or refusing: stop asking it).
//
// The credential header's value is a secret: it is sent to the cache's own
// origin only (a redirect elsewhere is not followed), never put in an
// error, and the base URL is shown without its user information.
package remotecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	repb "github.com/corehq/core/proto/gen/build/bazel/remote/execution/v2"
)

// Modes: a laptop reads; CI reads and writes.
const (
	ModeRead      = "read"
	ModeReadWrite = "read-write"
)

// Config says where the remote cache is and how to talk to it.
type Config struct {
	URL         string        // base, e.g. http://cache.internal:8080/core
	Mode        string        // ModeRead or ModeReadWrite
	Header      string        // name of the credential header ("" for none)
	HeaderValue string        // its value (a secret)
	Timeout     time.Duration // per request, from dial to the last byte
	Parallelism int           // requests in flight at once
}

// Errors a caller acts on.
var (
	// ErrNotFound is a miss: the server does not have the entry or blob.
	ErrNotFound = errors.New("not in the remote cache")
	// ErrCorrupt is an entry or blob that is not what its key or digest
	// says: it is never used.
	ErrCorrupt = errors.New("corrupt remote cache entry")
)

// maxActionResult bounds what an /ac/ entry may be, before it is decoded.
const maxActionResult = 16 << 20

// copyBuffer is the size of the chunks blobs move in.
const copyBuffer = 256 << 10

var buffers = sync.Pool{New: func() any { b := make([]byte, copyBuffer); return &b }}

// Client talks to one remote cache. It is safe for concurrent use.
type Client struct {
	base    string // without a trailing slash
	shown   string // base without user information, for messages
	mode    string
	header  string
	value   string
	timeout time.Duration
	sem     chan struct{}
	http    *http.Client
}

// New checks cfg and returns a client. It does not contact the server.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("cache.remote.url %q is not an http or https URL (e.g. http://127.0.0.1:8080/cache)", Redact(cfg.URL))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("cache.remote.url %s: a base URL has no query or fragment", Redact(cfg.URL))
	}
	switch cfg.Mode {
	case ModeRead, ModeReadWrite:
	case "":
		cfg.Mode = ModeRead
	default:
		return nil, fmt.Errorf("cache.remote.mode %q: use read (laptops) or read-write (CI)", cfg.Mode)
	}
	if cfg.Header != "" && !validHeaderName(cfg.Header) {
		return nil, fmt.Errorf("cache.remote.header %q is not an HTTP header name", cfg.Header)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Parallelism <= 0 {
		cfg.Parallelism = 8
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: min(cfg.Timeout, 10*time.Second), KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          cfg.Parallelism * 2,
		MaxIdleConnsPerHost:   cfg.Parallelism * 2,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: cfg.Timeout,
		ForceAttemptHTTP2:     true,
		// Blobs are stored as they are: no gzip to undo (nor a length that
		// stops matching the digest's), and reads and writes in large
		// chunks rather than the transport's 4 KB ones.
		DisableCompression: true,
		ReadBufferSize:     copyBuffer,
		WriteBufferSize:    copyBuffer,
	}
	shown := *u
	shown.User = nil
	return &Client{
		base:    strings.TrimSuffix(u.String(), "/"),
		shown:   strings.TrimSuffix(shown.String(), "/"),
		mode:    cfg.Mode,
		header:  cfg.Header,
		value:   cfg.HeaderValue,
		timeout: cfg.Timeout,
		sem:     make(chan struct{}, cfg.Parallelism),
		http:    &http.Client{Transport: tr, CheckRedirect: sameOrigin(u)},
	}, nil
}

// maxRedirects bounds the redirects one request follows on the cache's
// own origin.
const maxRedirects = 5

// sameOrigin follows a redirect only to base's scheme, host and port. The
// credential header rides on every request: net/http drops Authorization
// on a redirect to another host, but a header of another name (BuildBuddy's
// x-buildbuddy-api-key) it would carry anywhere the server points, and so
// would the URL's user information. So a redirect elsewhere ends the
// request, and the message says what to set instead.
func sameOrigin(base *url.URL) func(*http.Request, []*http.Request) error {
	want := origin(base)
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		if got := origin(req.URL); got != want {
			return fmt.Errorf("the server redirected to %s, and core sends the cache's credential to %s alone: set cache.remote.url to the address it redirects to", got, want)
		}
		return nil
	}
}

// origin is u's scheme://host:port, the port spelled out and the host in
// lower case, so that two spellings of one origin compare equal.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(strings.TrimSuffix(u.Hostname(), ".")), port)
}

// Redact returns rawURL without its user information, for messages.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	return u.String()
}

// String is the base URL without user information.
func (c *Client) String() string { return c.shown }

// Mode is read or read-write.
func (c *Client) Mode() string { return c.mode }

// Writable reports whether the client uploads.
func (c *Client) Writable() bool { return c.mode == ModeReadWrite }

// Digest names a blob: its SHA-256 in lower-case hex and its size.
type Digest struct {
	Hash string
	Size int64
}

// EmptyDigest is the digest of no bytes. No server is asked for it.
var EmptyDigest = DigestOf(nil)

// DigestOf returns the digest of b.
func DigestOf(b []byte) Digest {
	sum := sha256.Sum256(b)
	return Digest{Hash: hex.EncodeToString(sum[:]), Size: int64(len(b))}
}

// Proto is d as the Remote Execution API writes it.
func (d Digest) Proto() *repb.Digest { return &repb.Digest{Hash: d.Hash, SizeBytes: d.Size} }

// FromProto reads a digest of an action result, checking its form.
func FromProto(p *repb.Digest) (Digest, error) {
	if p == nil {
		return EmptyDigest, nil
	}
	if !validHash(p.GetHash()) || p.GetSizeBytes() < 0 {
		return Digest{}, fmt.Errorf("%w: digest %q/%d is not a SHA-256 and a size", ErrCorrupt, p.GetHash(), p.GetSizeBytes())
	}
	return Digest{Hash: p.GetHash(), Size: p.GetSizeBytes()}, nil
}

// ValidKey reports whether key can name an action: a SHA-256 in hex.
func ValidKey(key string) bool { return validHash(key) }

func validHash(h string) bool {
	if len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if !('0' <= h[i] && h[i] <= '9' || 'a' <= h[i] && h[i] <= 'f') {
			return false
		}
	}
	return true
}

// GetAction returns the action result stored under key.
func (c *Client) GetAction(ctx context.Context, key string) (*repb.ActionResult, error) {
	if !validHash(key) {
		return nil, fmt.Errorf("remote cache: action key %q is not a SHA-256", key)
	}
	var buf bytes.Buffer
	err := c.get(ctx, "ac/"+key, func(body io.Reader, length int64) error {
		if length > maxActionResult {
			return fmt.Errorf("%w: action result %s is %d bytes (the limit is %d)", ErrCorrupt, key, length, maxActionResult)
		}
		n, err := io.Copy(&buf, io.LimitReader(body, maxActionResult+1))
		if err != nil {
			return err
		}
		if n > maxActionResult {
			return fmt.Errorf("%w: action result %s is over %d bytes", ErrCorrupt, key, maxActionResult)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	ar := &repb.ActionResult{}
	if err := proto.Unmarshal(buf.Bytes(), ar); err != nil {
		return nil, fmt.Errorf("%w: action result %s does not decode: %v", ErrCorrupt, key, err)
	}
	return ar, nil
}

// PutAction stores ar under key. The blobs it names must be stored first.
func (c *Client) PutAction(ctx context.Context, key string, ar *repb.ActionResult) error {
	if !validHash(key) {
		return fmt.Errorf("remote cache: action key %q is not a SHA-256", key)
	}
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(ar)
	if err != nil {
		return err
	}
	return c.put(ctx, "ac/"+key, bytes.NewReader(data), int64(len(data)))
}

// HasBlob reports whether the server holds the blob d.
func (c *Client) HasBlob(ctx context.Context, d Digest) (bool, error) {
	if d.Size == 0 {
		return true, nil
	}
	resp, err := c.do(ctx, http.MethodHead, "cas/"+d.Hash, nil, 0)
	if err != nil {
		return false, err
	}
	drain(resp)
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return false, nil
	case resp.StatusCode/100 == 2:
		return true, nil
	}
	return false, c.statusError(http.MethodHead, "cas/"+d.Hash, resp)
}

// GetBlob writes the blob d to w, checking its size and SHA-256 as it
// goes. On ErrCorrupt, w has received bytes that must be thrown away.
func (c *Client) GetBlob(ctx context.Context, d Digest, w io.Writer) error {
	if d.Size == 0 {
		return nil
	}
	return c.get(ctx, "cas/"+d.Hash, func(body io.Reader, length int64) error {
		if length >= 0 && length != d.Size {
			return fmt.Errorf("%w: blob %s is %d bytes, its digest says %d", ErrCorrupt, short(d.Hash), length, d.Size)
		}
		h := sha256.New()
		buf := buffers.Get().(*[]byte)
		defer buffers.Put(buf)
		n, err := io.CopyBuffer(io.MultiWriter(w, h), io.LimitReader(body, d.Size+1), *buf)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return fmt.Errorf("%w: blob %s is truncated", ErrCorrupt, short(d.Hash))
			}
			return err
		}
		return checkSum(d, n, h)
	})
}

func checkSum(d Digest, n int64, h hash.Hash) error {
	if n != d.Size {
		return fmt.Errorf("%w: blob %s has %d bytes, its digest says %d", ErrCorrupt, short(d.Hash), n, d.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != d.Hash {
		return fmt.Errorf("%w: blob %s has content hashing to %s", ErrCorrupt, short(d.Hash), short(got))
	}
	return nil
}

// PutBlob uploads the d.Size bytes r yields as the blob d.
func (c *Client) PutBlob(ctx context.Context, d Digest, r io.Reader) error {
	if d.Size == 0 {
		return nil
	}
	return c.put(ctx, "cas/"+d.Hash, r, d.Size)
}

// get runs a GET and hands a 2xx body to read; 404 is ErrNotFound.
func (c *Client) get(ctx context.Context, rel string, read func(body io.Reader, length int64) error) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.do(ctx, http.MethodGet, rel, nil, 0)
	if err != nil {
		return err
	}
	defer drain(resp)
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return ErrNotFound
	case resp.StatusCode/100 != 2:
		return c.statusError(http.MethodGet, rel, resp)
	}
	if err := read(resp.Body, resp.ContentLength); err != nil {
		if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrNotFound) {
			return err
		}
		return fmt.Errorf("remote cache: GET %s/%s: %w", c.shown, rel, err)
	}
	return nil
}

func (c *Client) put(ctx context.Context, rel string, body io.Reader, size int64) error {
	if !c.Writable() {
		return fmt.Errorf("remote cache %s is read-only here (cache.remote.mode read): not uploading", c.shown)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	resp, err := c.do(ctx, http.MethodPut, rel, io.LimitReader(body, size), size)
	if err != nil {
		return err
	}
	drain(resp)
	if resp.StatusCode/100 != 2 {
		return c.statusError(http.MethodPut, rel, resp)
	}
	return nil
}

// do sends one request, at most Parallelism at a time.
func (c *Client) do(ctx context.Context, method, rel string, body io.Reader, size int64) (*http.Response, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("remote cache: %s %s/%s: %w", method, c.shown, rel, context.Cause(ctx))
	}
	defer func() { <-c.sem }()
	req, err := http.NewRequestWithContext(ctx, method, c.base+"/"+rel, body)
	if err != nil {
		return nil, fmt.Errorf("remote cache: %s %s/%s: %w", method, c.shown, rel, err)
	}
	if body != nil {
		req.ContentLength = size
		if size == 0 {
			req.Body = http.NoBody
		}
	}
	if c.header != "" {
		req.Header.Set(c.header, c.value)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// url.Error quotes the URL with its user information: name the
		// request ourselves and keep only the cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("remote cache: %s %s/%s: %w", method, c.shown, rel, err)
	}
	return resp, nil
}

func (c *Client) statusError(method, rel string, resp *http.Response) error {
	hint := ""
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden:
		hint = " (check the credential: cache.remote.header and cache.remote.header_env)"
	case http.StatusMethodNotAllowed:
		if method == http.MethodPut {
			hint = " (the server does not accept uploads; nginx needs dav_methods PUT)"
		}
	}
	return fmt.Errorf("remote cache: %s %s/%s: %s%s", method, c.shown, rel, resp.Status, hint)
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0) {
			return false
		}
	}
	return s != ""
}
