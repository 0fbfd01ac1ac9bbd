package e2e

// Clients of the running server: plain HTTP with the gateway's error
// shapes, the generated Connect client with a bearer, and an SSE reader.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/proto/gen/core/token/v1alpha1/tokenv1alpha1connect"
)

// httpClient talks to the server: no proxy, no transparent gzip (so bodies
// are the bytes on the wire), and a deadline per request.
var httpClient = &http.Client{
	Timeout: 30 * time.Second,
	Transport: &http.Transport{
		Proxy:               nil,
		DisableCompression:  true,
		MaxIdleConnsPerHost: 16,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
	},
}

// response is a fully read HTTP response.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r response) String() string {
	body := r.Body
	if len(body) > 2000 {
		body = append(body[:2000:2000], "..."...)
	}
	return fmt.Sprintf("HTTP %d %v\n%s", r.Status, r.Header, body)
}

// do sends req and reads the whole answer.
func do(t testing.TB, req *http.Request) response {
	t.Helper()
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", req.Method, req.URL, err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: body}
}

// newRequest builds a request; token, when set, goes into Authorization.
// headers are name, value pairs.
func newRequest(t testing.TB, method, url, token string, body io.Reader, headers ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatalf("new request %s %s: %v", method, url, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// get is GET url with token (may be "").
func get(t testing.TB, url, token string, headers ...string) response {
	t.Helper()
	return do(t, newRequest(t, http.MethodGet, url, token, nil, headers...))
}

// apiError decodes the gateway's error body {"error":{"code","message"}},
// failing when the body has another shape.
func apiError(t testing.TB, r response) (code, message string) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type = %q, want application/json\n%s", ct, r)
	}
	var body struct {
		Error *struct {
			Code    *string `json:"code"`
			Message *string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error == nil || body.Error.Code == nil || body.Error.Message == nil {
		t.Fatalf(`error body is not {"error":{"code","message"}} (%v)\n%s`, err, r)
	}
	return *body.Error.Code, *body.Error.Message
}

// wantAPIError checks status and error code of r.
func wantAPIError(t testing.TB, r response, status int, code string) string {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d\n%s", r.Status, status, r)
	}
	gotCode, msg := apiError(t, r)
	if gotCode != code {
		t.Errorf("error code = %q, want %q (message %q)", gotCode, code, msg)
	}
	if msg == "" {
		t.Errorf("error %q has an empty message", gotCode)
	}
	return msg
}

// want401 checks a 401 with a Bearer challenge and the JSON error body.
func want401(t testing.TB, r response) {
	t.Helper()
	wantAPIError(t, r, http.StatusUnauthorized, "unauthenticated")
	if ch := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(ch, "Bearer") {
		t.Errorf("WWW-Authenticate = %q, want a Bearer challenge", ch)
	}
}

// eventually polls check until it returns true or pollTimeout passes.
func eventually(t testing.TB, what string, check func() bool) {
	t.Helper()
	deadline := time.Now().Add(pollTimeout)
	for !check() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, pollTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tokenClient is a TokenService client that sends token as its bearer.
func tokenClient(s *Server, token string, opts ...connect.ClientOption) tokenv1alpha1connect.TokenServiceClient {
	hc := &http.Client{Timeout: 30 * time.Second, Transport: auth.Transport{Token: token, Next: httpClient.Transport}}
	return tokenv1alpha1connect.NewTokenServiceClient(hc, s.URL, opts...)
}

// rpcCtx is the context of one RPC.
func rpcCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// wantConnectCode checks that err is a Connect error with code want.
func wantConnectCode(t testing.TB, err error, want connect.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("the call succeeded; want Connect code %s", want)
	}
	if got := connect.CodeOf(err); got != want {
		t.Fatalf("Connect code = %s, want %s (error: %v)", got, want, err)
	}
}

// sseEvent is one dispatched event or one comment line of an SSE stream.
type sseEvent struct {
	Comment string // set for a comment line (": text")
	Type    string // event type ("message" when the stream gave none)
	Data    string
}

func (e sseEvent) String() string {
	if e.Type == "" {
		return ": " + e.Comment
	}
	return fmt.Sprintf("event: %s data: %s", e.Type, e.Data)
}

// sseStream reads an SSE response in the background.
type sseStream struct {
	name   string
	events chan sseEvent
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	err    error // why the stream ended
}

// openSSE connects to the events route with token and checks the answer is
// an event stream. The stream is closed at cleanup.
func openSSE(t testing.TB, s *Server, token, name string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/api/v1/events", nil)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	// No client timeout: the stream lives until cancel.
	resp, err := (&http.Client{Transport: httpClient.Transport}).Do(req)
	if err != nil {
		cancel()
		t.Fatalf("open SSE stream: %v", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		cancel()
		t.Fatalf("GET /api/v1/events: HTTP %d %q, want 200 text/event-stream\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	st := &sseStream{name: name, events: make(chan sseEvent, 4096), cancel: cancel, done: make(chan struct{})}
	go st.read(resp.Body)
	t.Cleanup(st.Close)
	return st
}

func (st *sseStream) read(body io.ReadCloser) {
	defer close(st.done)
	defer close(st.events)
	defer func() { _ = body.Close() }()
	r := bufio.NewReader(body)
	var typ string
	var data []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			st.mu.Lock()
			st.err = err
			st.mu.Unlock()
			return
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if typ != "" || data != nil {
				if typ == "" {
					typ = "message"
				}
				st.events <- sseEvent{Type: typ, Data: strings.Join(data, "\n")}
			}
			typ, data = "", nil
		case strings.HasPrefix(line, ":"):
			st.events <- sseEvent{Comment: strings.TrimPrefix(line[1:], " ")}
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				typ = value
			case "data":
				data = append(data, value)
			}
		}
	}
}

// Close ends the stream and waits for its reader.
func (st *sseStream) Close() {
	st.cancel()
	<-st.done
}

// next returns the next event or comment; it fails the test when none comes
// within eventTimeout or the stream ends.
func (st *sseStream) next(t testing.TB) sseEvent {
	t.Helper()
	select {
	case e, ok := <-st.events:
		if !ok {
			st.mu.Lock()
			defer st.mu.Unlock()
			t.Fatalf("SSE stream %s ended: %v", st.name, st.err)
		}
		return e
	case <-time.After(eventTimeout):
		t.Fatalf("SSE stream %s: nothing within %s", st.name, eventTimeout)
	}
	return sseEvent{}
}

// waitFor skips events until match accepts one and returns it.
func (st *sseStream) waitFor(t testing.TB, what string, match func(sseEvent) bool) sseEvent {
	t.Helper()
	deadline := time.Now().Add(eventTimeout)
	var seen []string
	for {
		remaining := time.Until(deadline)
		if remaining <= 0 {
			t.Fatalf("SSE stream %s: no %s within %s; saw %q", st.name, what, eventTimeout, seen)
		}
		select {
		case e, ok := <-st.events:
			if !ok {
				st.mu.Lock()
				defer st.mu.Unlock()
				t.Fatalf("SSE stream %s ended (%v) before %s; saw %q", st.name, st.err, what, seen)
			}
			if match(e) {
				return e
			}
			if e.Comment != "keep-alive" && len(seen) < 50 {
				seen = append(seen, e.String())
			}
		case <-time.After(remaining):
		}
	}
}

// waitEnd waits for the stream to end (the server closed it).
func (st *sseStream) waitEnd(t testing.TB) {
	t.Helper()
	select {
	case <-st.done:
	case <-time.After(eventTimeout):
		t.Fatalf("SSE stream %s still open after %s", st.name, eventTimeout)
	}
}
