package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/auth"
)

// bomb is a JSON object whose one string field is n bytes long, gzipped:
// a few kilobytes that expand to n.
func bomb(t *testing.T, field string, n int) []byte {
	t.Helper()
	// A gzip stream may hold several members, read one after another as
	// one body: the bomb is its head, one member of 1 MiB of "a" repeated
	// (compressed once, not n bytes' worth), and its tail.
	member := func(p []byte) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(p)
		_ = zw.Close()
		return buf.Bytes()
	}
	mib := member(bytes.Repeat([]byte("a"), 1<<20))
	out := member([]byte(`{"` + field + `":"`))
	for written := 0; written < n; written += 1 << 20 {
		out = append(out, mib...)
	}
	return append(out, member([]byte(`"}`))...)
}

// post sends body to a row with the headers a client of its kind sends.
func post(t *testing.T, s *running, row gateway.Row, token string, body []byte, gzipped bool) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL+row.Path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if gzipped {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(data)
}

// errorCode is the code of a Connect error body or of the gateway's
// {"error":{"code"}}.
func errorCode(body string) string {
	var v struct {
		Code  string `json:"code"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(body), &v)
	if v.Code != "" {
		return v.Code
	}
	return v.Error.Code
}

// TestBodiesAreBoundedAfterDecompression sends every POST row of
// routes.yaml a body over its limit, plain and as gzip that expands past
// it: each is refused as too large (or, on plain routes, which do not
// decompress, as not JSON), never served and never a 5xx.
func TestBodiesAreBoundedAfterDecompression(t *testing.T) {
	s := startServer(t, nil)
	for _, row := range realTable(t).Select(gateway.ExposureLoopback, Keep(true)) {
		if row.Method != http.MethodPost {
			continue
		}
		limit := row.MaxBody
		if limit == 0 {
			limit = 1 << 20
		}
		token := s.Tokens.Mint(auth.KindAdmin, row.Grant, time.Hour)
		t.Run(row.Name, func(t *testing.T) {
			t.Run("a body over the limit is refused as too large", func(t *testing.T) {
				status, body := post(t, s, row, token, []byte(`{"name":"`+strings.Repeat("a", int(limit))+`"}`), false)
				if code := errorCode(body); status != http.StatusRequestEntityTooLarge && code != "resource_exhausted" {
					t.Errorf("status %d, code %q: %.200s", status, code, body)
				}
			})
			t.Run("gzip that expands past the limit is refused", func(t *testing.T) {
				status, body := post(t, s, row, token, bomb(t, "name", int(8*limit)), true)
				code := errorCode(body)
				ok := code == "resource_exhausted" || status == http.StatusRequestEntityTooLarge ||
					row.Procedure == "" && status == http.StatusBadRequest // plain routes do not decompress
				if !ok || status >= 500 {
					t.Errorf("status %d, code %q: %.200s", status, code, body)
				}
			})
		})
	}
}

// TestACompressedBodyAllocatesLittle: 256 KB of gzip that expands to 256 MiB,
// sent to a read route with a read token, makes the server allocate about
// its 1 MiB limit, not the expansion (it took 345 MiB, and RunTool 6 GiB,
// before the limit applied after decompression).
func TestACompressedBodyAllocatesLittle(t *testing.T) {
	s := startServer(t, nil)
	row := gateway.Row{Path: "/core.status.v1alpha1.StatusService/GetStatus", Procedure: "core.status.v1alpha1.StatusService/GetStatus"}
	token := s.Tokens.Mint(auth.KindConsole, auth.ConsoleRead, time.Hour)
	body := bomb(t, "workspace", 256<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	status, resp := post(t, s, row, token, body, true)
	runtime.ReadMemStats(&after)
	if errorCode(resp) != "resource_exhausted" {
		t.Fatalf("status %d: %.200s", status, resp)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("the server allocated %d MiB for a %d KB body", grew>>20, len(body)>>10)
	}
}

// rawPost sends a POST whose body stops short of its Content-Length, then
// closes its side, and returns the status line.
func rawPost(t *testing.T, s *running, row gateway.Row, token string) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.BaseURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\":", row.Path, token)
	_ = conn.(*net.TCPConn).CloseWrite()
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return strings.TrimSpace(line)
}

// TestATruncatedBodyIsTheClientsFault: a body that ends before its
// Content-Length is a 4xx on every POST row, never a 500.
func TestATruncatedBodyIsTheClientsFault(t *testing.T) {
	s := startServer(t, nil)
	for _, row := range realTable(t).Select(gateway.ExposureLoopback, Keep(true)) {
		if row.Method != http.MethodPost {
			continue
		}
		t.Run(row.Name, func(t *testing.T) {
			line := rawPost(t, s, row, s.Tokens.Mint(auth.KindAdmin, row.Grant, time.Hour))
			if !strings.HasPrefix(line, "HTTP/1.1 4") {
				t.Errorf("answer %q, want a 4xx", line)
			}
		})
	}
}
