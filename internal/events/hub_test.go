package events

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/internal/apierr"
)

// liveness bounds how long anything in these tests may wait for something
// that should happen at once (as the e2e suite's eventTimeout does). It is a
// bound against hanging, not a measure of speed.
const liveness = 30 * time.Second

// serveHub runs hub behind a real HTTP server; an error of Serve becomes its
// status. The hub shuts down before the server closes (httptest's Close
// waits for every handler).
func serveHub(t *testing.T, hub *Hub) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(hubHandler(hub))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { shutdown(t, hub) })
	return srv
}

func hubHandler(hub *Hub) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := hub.Serve(w, r); err != nil {
			e := apierr.As(err)
			http.Error(w, e.Message, e.Status)
		}
	}
}

func shutdown(t *testing.T, hub *Hub) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveness)
	defer cancel()
	if err := hub.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// subscribe opens a stream and returns a channel of its lines, closed when
// the stream ends.
func subscribe(t *testing.T, url string) <-chan string {
	lines, _ := subscribeCancel(t, url)
	return lines
}

// subscribeCancel is subscribe, with a function that hangs up.
func subscribeCancel(t *testing.T, url string) (<-chan string, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	lines := make(chan string, 1000)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines, cancel
}

// expect reads lines until want.
func expect(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(liveness)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("stream ended before %q", want)
			}
			if l == want {
				return
			}
		case <-deadline:
			t.Fatalf("no line %q", want)
		}
	}
}

// expectEnd reads lines until the stream ends.
func expectEnd(t *testing.T, lines <-chan string) {
	t.Helper()
	deadline := time.After(liveness)
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the stream did not end")
		}
	}
}

// eventually polls cond until it holds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(liveness)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEveryConnectedSubscriberGetsEveryEvent(t *testing.T) {
	hub := NewHub(50 * time.Millisecond)
	srv := serveHub(t, hub)
	a, b := subscribe(t, srv.URL), subscribe(t, srv.URL)
	expect(t, a, ": connected")
	expect(t, b, ": connected")
	hub.Publish(KindGraph, []byte(`{"version":2}`))
	for _, s := range []<-chan string{a, b} {
		expect(t, s, "event: graph")
		expect(t, s, `data: {"version":2}`)
		expect(t, s, ": keep-alive")
	}
}

func TestTheStreamIsNeitherCachedNorBuffered(t *testing.T) {
	hub := NewHub(time.Hour)
	srv := serveHub(t, hub)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.Header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control = %q, want no-store", got)
	}
	if got := resp.Header.Get("X-Accel-Buffering"); got != "no" {
		t.Errorf("X-Accel-Buffering = %q, want no", got)
	}
}

func TestAHealthySubscriberGetsEventsInPublishOrder(t *testing.T) {
	hub := NewHub(time.Hour)
	srv := serveHub(t, hub)
	lines := subscribe(t, srv.URL)
	expect(t, lines, ": connected")
	const n = queueSize // a burst the queue holds
	for i := range n {
		hub.Publish(KindDiagnostic, []byte(strconv.Itoa(i)))
	}
	for i := range n {
		expect(t, lines, "event: diagnostic")
		expect(t, lines, "data: "+strconv.Itoa(i))
	}
	if d := hub.Dropped(); d != 0 {
		t.Errorf("Dropped() = %d, want 0", d)
	}
}

func TestAnIdleStreamGetsKeepAliveComments(t *testing.T) {
	hub := NewHub(10 * time.Millisecond)
	srv := serveHub(t, hub)
	lines := subscribe(t, srv.URL)
	expect(t, lines, ": connected")
	for range 3 {
		expect(t, lines, ": keep-alive")
	}
}

func TestShutdownEndsEveryStreamAndLaterSubscribersAreRefused(t *testing.T) {
	hub := NewHub(time.Hour)
	srv := serveHub(t, hub)
	a, b := subscribe(t, srv.URL), subscribe(t, srv.URL)
	expect(t, a, ": connected")
	expect(t, b, ": connected")
	shutdown(t, hub)
	expectEnd(t, a)
	expectEnd(t, b)
	if n := hub.Subscribers(); n != 0 {
		t.Errorf("Subscribers() after Shutdown = %d, want 0", n)
	}

	var e *apierr.Error
	if err := hub.Serve(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)); !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
		t.Fatalf("Serve after Shutdown = %v, want a 503", err)
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a stream opened after Shutdown: status %d, want 503", resp.StatusCode)
	}
	shutdown(t, hub) // a second Shutdown is harmless
}

func TestAClientThatHangsUpIsUnsubscribed(t *testing.T) {
	hub := NewHub(time.Hour)
	srv := serveHub(t, hub)
	a, hangUp := subscribeCancel(t, srv.URL)
	b := subscribe(t, srv.URL)
	expect(t, a, ": connected")
	expect(t, b, ": connected")
	if n := hub.Subscribers(); n != 2 {
		t.Fatalf("Subscribers() = %d, want 2", n)
	}
	hangUp()
	eventually(t, "Subscribers() falls to 1", func() bool { return hub.Subscribers() == 1 })
	hub.Publish(KindGraph, []byte(`{}`))
	expect(t, b, "event: graph")
	if d := hub.Dropped(); d != 0 {
		t.Errorf("Dropped() = %d, want 0: a client that leaves is not dropped", d)
	}
}

// returnsPromptly fails the test if f does not return within liveness.
func returnsPromptly(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(liveness):
		t.Fatalf("%s blocks", what)
	}
}

func TestPublishAfterShutdownDoesNothingAndDoesNotBlock(t *testing.T) {
	hub := NewHub(time.Hour)
	srv := serveHub(t, hub)
	lines := subscribe(t, srv.URL)
	expect(t, lines, ": connected")
	shutdown(t, hub)
	returnsPromptly(t, "Publish after Shutdown", func() {
		for range 10 * queueSize {
			hub.Publish(KindGraph, []byte(`{}`))
		}
	})
	for l := range lines {
		if strings.HasPrefix(l, "event:") {
			t.Errorf("after Shutdown the stream got %q", l)
		}
	}
	if d := hub.Dropped(); d != 0 {
		t.Errorf("Dropped() = %d, want 0", d)
	}
}

func TestPublishWithoutSubscribersDoesNotBlock(t *testing.T) {
	hub := NewHub(time.Hour)
	t.Cleanup(func() { shutdown(t, hub) })
	returnsPromptly(t, "Publish without subscribers", func() {
		for range 10 * queueSize {
			hub.Publish(KindGraph, []byte(`{}`))
		}
	})
}

// connKey holds a request's connection in its context.
type connKey struct{}

// stallingServer serves hub; a request with the header Stall gets a small
// send buffer on its connection, so that once its client stops reading the
// server's writes block after little data (on loopback they would otherwise
// fill megabytes first).
func stallingServer(t *testing.T, hub *Hub) *httptest.Server {
	serve := hubHandler(hub)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := r.Context().Value(connKey{}).(*net.TCPConn); ok && r.Header.Get("Stall") != "" {
			if err := c.SetWriteBuffer(16 << 10); err != nil {
				t.Error(err)
			}
		}
		serve(w, r)
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, connKey{}, c)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { shutdown(t, hub) })
	return srv
}

// TestStalledClientsAreDroppedAndNeverDelayTheOthers is issue 19's stuck
// client: some clients send their request and never read. Events are big
// and the stalled connections' send buffers small, so their writes block
// after a few events. The healthy clients must still get every event, in
// order, each before the next is published; the stalled ones are dropped
// once their queues overflow, and their connections close.
func TestStalledClientsAreDroppedAndNeverDelayTheOthers(t *testing.T) {
	const (
		healthy = 20
		stalled = 3
		size    = 64 << 10
		// Events after the stalled queues overflow, to show that the
		// healthy clients go on; and a bound on the events before it (a
		// few fill the socket buffers, then queueSize fill the queue).
		after     = 5
		maxEvents = 4 * queueSize
	)
	hub := NewHub(time.Hour)
	srv := stallingServer(t, hub)
	deadline := time.Now().Add(liveness)

	// The stalled clients: a request on a raw connection, never read.
	var stuck []net.Conn
	for range stalled {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: events\r\nStall: yes\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		stuck = append(stuck, c)
	}

	// The healthy clients report the sequence number of every event.
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	got := make([]chan int, healthy)
	for i := range got {
		got[i] = make(chan int, maxEvents+after)
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 2*size)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					seq, _, _ := strings.Cut(data, " ")
					n, _ := strconv.Atoi(seq)
					got[i] <- n
				}
			}
			close(got[i])
		}()
	}
	eventually(t, "every client is subscribed", func() bool { return hub.Subscribers() == healthy+stalled })

	pad := strings.Repeat("x", size)
	published := 0
	publish := func() {
		t.Helper()
		hub.Publish(KindGraph, fmt.Appendf(nil, "%d %s", published, pad))
		for i, c := range got {
			select {
			case n, ok := <-c:
				if !ok {
					t.Fatalf("healthy client %d: the stream ended after %d of %d events (Dropped() = %d)", i, published, published+1, hub.Dropped())
				}
				if n != published {
					t.Fatalf("healthy client %d: got event %d where %d was due", i, n, published)
				}
			case <-time.After(time.Until(deadline)):
				t.Fatalf("healthy client %d got %d of %d events within %s; the stalled clients hold it up", i, published, published+1, liveness)
			}
		}
		published++
	}
	for hub.Dropped() < stalled {
		if published == maxEvents {
			t.Fatalf("after %d events of %d bytes, %d of %d stalled clients are dropped", published, size, hub.Dropped(), stalled)
		}
		publish()
	}
	t.Logf("the stalled clients were dropped after %d events", published)
	for range after {
		publish()
	}

	if d := hub.Dropped(); d != stalled {
		t.Errorf("Dropped() = %d, want %d", d, stalled)
	}
	eventually(t, fmt.Sprintf("Subscribers() falls back to the %d healthy clients", healthy),
		func() bool { return hub.Subscribers() == healthy })
	// A dropped client's connection ends: it reads what it was sent, then
	// EOF (or a reset).
	for i, c := range stuck {
		_ = c.SetReadDeadline(deadline)
		if _, err := io.Copy(io.Discard, c); err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				t.Errorf("stalled client %d: its connection is still open", i)
			}
		}
	}
}

// TestAListenerGetsEveryEventUntilItStops: a listener inside the server
// gets each event as the streams do, in order, and nothing after stop or
// Shutdown.
func TestAListenerGetsEveryEventUntilItStops(t *testing.T) {
	hub := NewHub(time.Hour)
	var got []string
	stop := hub.Listen(func(kind string, data []byte) { got = append(got, kind+" "+string(data)) })
	hub.Publish(KindGraph, []byte(`{"version":1}`))
	hub.Publish(KindDiagnostic, []byte(`{}`))
	stop()
	hub.Publish(KindGraph, []byte(`{"version":2}`))
	if want := []string{`graph {"version":1}`, `diagnostic {}`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("the listener got %q, want %q", got, want)
	}
	got = nil
	hub.Listen(func(kind string, data []byte) { got = append(got, kind) })
	shutdown(t, hub)
	hub.Publish(KindGraph, []byte(`{}`))
	if late := hub.Listen(func(string, []byte) { t.Error("a listener after Shutdown was called") }); late == nil {
		t.Error("Listen after Shutdown returned no stop")
	}
	hub.Publish(KindGraph, []byte(`{}`))
	if len(got) != 0 {
		t.Errorf("after Shutdown the listener got %q", got)
	}
}
