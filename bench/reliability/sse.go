package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// sseTransport carries the healthy streams: one connection each, no
// compression (the server does not compress the stream anyway).
var sseTransport = &http.Transport{
	DisableCompression:  true,
	MaxIdleConnsPerHost: 1,
	ReadBufferSize:      4 << 10,
	DialContext:         (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
}

// receipt is one `event: graph` as a client read it: the event's key
// (its version, and its symbols version) and when its data line arrived.
type receipt struct {
	key uint64
	at  int64 // UnixNano
}

// eventKey is version<<32 | symbols_version of a graph event's data.
func eventKey(data []byte) (uint64, bool) {
	v, ok := jsonUint(data, `,"version":`)
	if !ok {
		v, ok = jsonUint(data, `{"version":`)
	}
	if !ok {
		return 0, false
	}
	sv, _ := jsonUint(data, `"symbols_version":`)
	return v<<32 | sv&0xffffffff, true
}

// jsonUint reads the unsigned number after key in data.
func jsonUint(data []byte, key string) (uint64, bool) {
	i := bytes.Index(data, []byte(key))
	if i < 0 {
		return 0, false
	}
	rest := data[i+len(key):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	n, err := strconv.ParseUint(string(rest[:j]), 10, 64)
	return n, err == nil
}

// sseClient is a healthy subscriber of GET /api/v1/events: it reads the
// stream with bufio as fast as it arrives and notes every graph event.
type sseClient struct {
	id     int
	cancel context.CancelFunc
	bytes  atomic.Int64 // bytes of the stream read so far
	ended  chan struct{}

	mu   sync.Mutex
	recv []receipt
	err  error // why the stream ended (nil while it runs, or when we closed it)
}

// openSSE connects a healthy client and waits for the `: connected`
// comment.
func openSSE(id int, base, token string) (*sseClient, error) {
	ctx, cancel := context.WithCancel(context.Background())
	c := &sseClient{id: id, cancel: cancel, ended: make(chan struct{})}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/events", nil)
	if err != nil {
		cancel()
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "text/event-stream")
	connected := make(chan error, 1)
	timer := time.AfterFunc(60*time.Second, cancel) // until connected
	resp, err := sseTransport.RoundTrip(req)
	if err != nil {
		timer.Stop()
		cancel()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		timer.Stop()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("GET /api/v1/events: %s: %s", resp.Status, body)
	}
	go c.read(ctx, resp.Body, connected)
	err = <-connected
	timer.Stop()
	if err != nil {
		cancel()
		return nil, err
	}
	return c, nil
}

// countingReader counts what passes through it.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *sseClient) read(ctx context.Context, body io.ReadCloser, connected chan<- error) {
	defer close(c.ended)
	defer body.Close()
	br := bufio.NewReaderSize(countingReader{body, &c.bytes}, 4<<10)
	isGraph, seenHello := false, false
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if !seenHello {
				connected <- fmt.Errorf("the stream ended before `: connected`: %w", err)
			}
			if ctx.Err() == nil { // not closed by us
				if err == io.EOF {
					err = errors.New("the server closed the stream")
				}
				c.mu.Lock()
				c.err = err
				c.mu.Unlock()
			}
			return
		}
		now := time.Now().UnixNano()
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			isGraph = false
		case !seenHello && bytes.Equal(line, []byte(": connected")):
			seenHello = true
			connected <- nil
		case bytes.Equal(line, []byte("event: graph")):
			isGraph = true
		case isGraph && bytes.HasPrefix(line, []byte("data:")):
			if k, ok := eventKey(line); ok {
				c.mu.Lock()
				c.recv = append(c.recv, receipt{key: k, at: now})
				c.mu.Unlock()
			}
		}
	}
}

// received is how many graph events the client has read.
func (c *sseClient) received() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.recv)
}

// receipts is a copy of what the client read, from index from on.
func (c *sseClient) receipts(from int) []receipt {
	c.mu.Lock()
	defer c.mu.Unlock()
	if from > len(c.recv) {
		return nil
	}
	return append([]receipt(nil), c.recv[from:]...)
}

// failure is why the stream ended on its own (nil while it runs).
func (c *sseClient) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// close hangs up and waits for the reader to stop.
func (c *sseClient) close() {
	c.cancel()
	<-c.ended
}

// stalledClient sends the request of the stream over a raw TCP connection
// whose receive buffer and segment size are tiny, and never reads: the
// server's socket buffer toward it fills after a few tens of kilobytes.
// (With the loopback's 64 KiB segments the kernel gives the server's side
// a send buffer of megabytes; clamping the segment size the client
// announces keeps it to tens of kilobytes.)
type stalledClient struct {
	conn net.Conn
	port int // its local port
}

func openStalled(addr, token string, rcvbuf, mss int) (*stalledClient, error) {
	d := net.Dialer{Timeout: 30 * time.Second, Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			if rcvbuf > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf)
			}
			if serr == nil && mss > 0 {
				serr = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG, mss)
			}
		})
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if rcvbuf > 0 {
		_ = conn.(*net.TCPConn).SetReadBuffer(rcvbuf)
	}
	_, err = fmt.Fprintf(conn, "GET /api/v1/events HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\n\r\n", addr, token)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &stalledClient{conn: conn, port: conn.LocalAddr().(*net.TCPAddr).Port}, nil
}

// drain finally reads what the server sent, for at most d: it reports the
// bytes read and whether the server had closed the stream (EOF or reset)
// rather than leaving it open.
func (s *stalledClient) drain(d time.Duration) (n int64, closed bool) {
	_ = s.conn.SetReadDeadline(time.Now().Add(d))
	n, err := io.Copy(io.Discard, s.conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return n, false
	}
	return n, true // io.Copy's nil is EOF; a reset is a close too
}
