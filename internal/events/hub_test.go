package events

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/corehq/core/internal/apierr"
)

// subscribe opens a stream and returns a channel of its lines.
func subscribe(t *testing.T, url string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	lines := make(chan string, 100)
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return lines
}

func expect(t *testing.T, lines <-chan string, want string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
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

func TestEveryConnectedSubscriberGetsEveryEvent(t *testing.T) {
	hub := NewHub(50 * time.Millisecond)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = hub.Serve(w, r) }))
	defer srv.Close()
	a, b := subscribe(t, srv.URL), subscribe(t, srv.URL)
	expect(t, a, ": connected")
	expect(t, b, ": connected")
	for hub.Subscribers() < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	hub.Publish(KindGraph, []byte(`{"version":2}`))
	for _, s := range []<-chan string{a, b} {
		expect(t, s, "event: graph")
		expect(t, s, `data: {"version":2}`)
		expect(t, s, ": keep-alive")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hub.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for range a { // the stream ends on shutdown
	}
	var e *apierr.Error
	if err := hub.Serve(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil)); !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
		t.Fatalf("Serve after Shutdown = %v, want a 503", err)
	}
}
