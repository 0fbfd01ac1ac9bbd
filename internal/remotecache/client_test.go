package remotecache_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/corehq/core/internal/remotecache"
	"github.com/corehq/core/internal/testbed"
	repb "github.com/corehq/core/proto/gen/build/bazel/remote/execution/v2"
)

func client(t *testing.T, cfg remotecache.Config) *remotecache.Client {
	t.Helper()
	c, err := remotecache.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAgainstNginx(t *testing.T) {
	ng := testbed.StartNginx(t, "")
	ctx := context.Background()
	rw := client(t, remotecache.Config{URL: ng.URL, Mode: remotecache.ModeReadWrite})
	blob := []byte("package main\n\nfunc main() {}\n")
	d := remotecache.DigestOf(blob)

	t.Run("a blob that was never stored is missing", func(t *testing.T) {
		has, err := rw.HasBlob(ctx, d)
		if err != nil || has {
			t.Fatalf("HasBlob = %v, %v", has, err)
		}
		if err := rw.GetBlob(ctx, d, &bytes.Buffer{}); !errors.Is(err, remotecache.ErrNotFound) {
			t.Fatalf("GetBlob = %v, want ErrNotFound", err)
		}
	})
	t.Run("a stored blob is there and reads back whole", func(t *testing.T) {
		if err := rw.PutBlob(ctx, d, bytes.NewReader(blob)); err != nil {
			t.Fatal(err)
		}
		if has, err := rw.HasBlob(ctx, d); err != nil || !has {
			t.Fatalf("HasBlob = %v, %v", has, err)
		}
		var out bytes.Buffer
		if err := rw.GetBlob(ctx, d, &out); err != nil || out.String() != string(blob) {
			t.Fatalf("GetBlob = %q, %v", out.String(), err)
		}
		if _, err := os.Stat(filepath.Join(ng.Data, "cas", d.Hash)); err != nil {
			t.Fatalf("not under cas/: %v", err)
		}
	})
	t.Run("a blob changed on the server is corrupt", func(t *testing.T) {
		p := filepath.Join(ng.Data, "cas", d.Hash)
		bad := bytes.ToUpper(blob)
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(p, blob, 0o644)
		if err := rw.GetBlob(ctx, d, &bytes.Buffer{}); !errors.Is(err, remotecache.ErrCorrupt) {
			t.Fatalf("GetBlob = %v, want ErrCorrupt", err)
		}
	})
	t.Run("a truncated blob is corrupt", func(t *testing.T) {
		p := filepath.Join(ng.Data, "cas", d.Hash)
		if err := os.WriteFile(p, blob[:10], 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(p, blob, 0o644)
		if err := rw.GetBlob(ctx, d, &bytes.Buffer{}); !errors.Is(err, remotecache.ErrCorrupt) {
			t.Fatalf("GetBlob = %v, want ErrCorrupt", err)
		}
	})
	t.Run("an action result round-trips as the Remote Execution API's message", func(t *testing.T) {
		key := strings.Repeat("ab", 32)
		ar := &repb.ActionResult{ExitCode: 0, OutputFiles: []*repb.OutputFile{{Path: "bin/app", Digest: d.Proto(), IsExecutable: true}}}
		if _, err := rw.GetAction(ctx, key); !errors.Is(err, remotecache.ErrNotFound) {
			t.Fatalf("GetAction before = %v", err)
		}
		if err := rw.PutAction(ctx, key, ar); err != nil {
			t.Fatal(err)
		}
		got, err := rw.GetAction(ctx, key)
		if err != nil || !proto.Equal(got, ar) {
			t.Fatalf("GetAction = %v, %v", got, err)
		}
	})
	t.Run("an action result that does not decode is corrupt", func(t *testing.T) {
		key := strings.Repeat("cd", 32)
		if err := os.MkdirAll(filepath.Join(ng.Data, "ac"), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ng.Data, "ac", key), []byte{0xff, 0xff, 0xff}, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := rw.GetAction(ctx, key); !errors.Is(err, remotecache.ErrCorrupt) {
			t.Fatalf("GetAction = %v, want ErrCorrupt", err)
		}
	})
	t.Run("read mode never uploads", func(t *testing.T) {
		ro := client(t, remotecache.Config{URL: ng.URL, Mode: remotecache.ModeRead})
		other := []byte("not to be stored")
		err := ro.PutBlob(ctx, remotecache.DigestOf(other), bytes.NewReader(other))
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("PutBlob in read mode = %v", err)
		}
		if _, serr := os.Stat(filepath.Join(ng.Data, "cas", remotecache.DigestOf(other).Hash)); serr == nil {
			t.Fatal("read mode stored a blob")
		}
	})
	t.Run("the doctor's check writes and reads back in read-write mode", func(t *testing.T) {
		what, err := rw.Check(ctx)
		if err != nil || !strings.Contains(what, "writable") {
			t.Fatalf("Check = %q, %v", what, err)
		}
	})
}

func TestCredentials(t *testing.T) {
	const token = "s3cr3t-t0ken-value"
	const secret = "Bearer " + token
	ng := testbed.StartNginx(t, token)
	ctx := context.Background()
	t.Run("the header's value is sent", func(t *testing.T) {
		c := client(t, remotecache.Config{URL: ng.URL, Mode: remotecache.ModeReadWrite, Header: "Authorization", HeaderValue: secret})
		if _, err := c.Check(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a wrong credential is refused and the message names the setting, not the value", func(t *testing.T) {
		c := client(t, remotecache.Config{URL: ng.URL, Mode: remotecache.ModeRead, Header: "Authorization", HeaderValue: "Bearer wrong-value-here"})
		_, err := c.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), "401") || !strings.Contains(err.Error(), "cache.remote.header") {
			t.Fatalf("Check = %v", err)
		}
		if strings.Contains(err.Error(), "wrong-value-here") {
			t.Fatalf("the credential is in the message: %v", err)
		}
	})
}

func TestUnreachableServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c := client(t, remotecache.Config{URL: "http://" + addr + "/cache", Timeout: 2 * time.Second})
	_, err = c.GetAction(context.Background(), strings.Repeat("0", 64))
	if err == nil || errors.Is(err, remotecache.ErrNotFound) || errors.Is(err, remotecache.ErrCorrupt) {
		t.Fatalf("GetAction = %v, want a transport error", err)
	}
	if !strings.Contains(err.Error(), addr) {
		t.Fatalf("the message does not name the server: %v", err)
	}
}

func TestNewRefusesWhatCannotWork(t *testing.T) {
	for _, tc := range []struct{ name, url, mode, header, want string }{
		{"a URL without a scheme", "cache.internal:8080", "read", "", "not an http or https URL"},
		{"an ftp URL", "ftp://cache.internal/", "read", "", "not an http or https URL"},
		{"a URL with a query", "http://cache.internal/?x=1", "read", "", "no query"},
		{"an unknown mode", "http://cache.internal/", "write", "", "use read"},
		{"a header name with a space", "http://cache.internal/", "read", "X Token", "not an HTTP header name"},
	} {
		t.Run(tc.name+" is refused", func(t *testing.T) {
			_, err := remotecache.New(remotecache.Config{URL: tc.url, Mode: tc.mode, Header: tc.header})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("user information is never shown", func(t *testing.T) {
		c := client(t, remotecache.Config{URL: "http://user:hunter2@cache.internal/core"})
		if strings.Contains(c.String(), "hunter2") {
			t.Fatalf("String() = %s", c.String())
		}
	})
}

// TestARedirectElsewhereCarriesNoCredential: net/http drops Authorization
// on a redirect to another host but would carry a header of another name,
// such as BuildBuddy's, anywhere; the client follows a redirect only on the
// cache's own origin.
func TestARedirectElsewhereCarriesNoCredential(t *testing.T) {
	const header, secret = "X-Buildbuddy-Api-Key", "bb-s3cr3t-key-value"
	// listen starts a server at ip that notes the credential of every
	// request it gets and answers 404 (a miss).
	listen := func(t *testing.T, ip string, got *atomic.Int32, seen *atomic.Int32) *httptest.Server {
		t.Helper()
		l, err := net.Listen("tcp", ip+":0")
		if err != nil {
			t.Skipf("cannot listen on %s: %v", ip, err)
		}
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen.Add(1)
			if r.Header.Get(header) == secret {
				got.Add(1)
			}
			http.NotFound(w, r)
		}))
		srv.Listener = l
		srv.Start()
		t.Cleanup(srv.Close)
		return srv
	}
	for _, tc := range []struct {
		name     string
		ip       string // where the redirect points; "" for the cache itself
		followed bool
	}{
		{"a redirect to another loopback address is not followed", "127.0.0.2", false},
		{"a redirect to another port of the same address is not followed", "127.0.0.1", false},
		{"a redirect on the cache's own origin is followed with the credential", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var otherGot, otherSeen, cacheGot atomic.Int32
			target := ""
			if tc.ip != "" {
				target = listen(t, tc.ip, &otherGot, &otherSeen).URL
			}
			cache := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/moved/") {
					if r.Header.Get(header) == secret {
						cacheGot.Add(1)
					}
					http.NotFound(w, r)
					return
				}
				http.Redirect(w, r, target+"/moved"+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			t.Cleanup(cache.Close)
			c := client(t, remotecache.Config{URL: cache.URL + "/cache", Header: header, HeaderValue: secret})
			_, err := c.GetAction(context.Background(), strings.Repeat("0", 64))
			if tc.followed {
				if !errors.Is(err, remotecache.ErrNotFound) || cacheGot.Load() != 1 {
					t.Fatalf("GetAction = %v; the credential arrived after the redirect %d times, want 1", err, cacheGot.Load())
				}
				return
			}
			if otherGot.Load() != 0 || otherSeen.Load() != 0 {
				t.Fatalf("the redirect was followed: %d requests there, %d with the credential", otherSeen.Load(), otherGot.Load())
			}
			if err == nil || errors.Is(err, remotecache.ErrNotFound) || !strings.Contains(err.Error(), "set cache.remote.url") {
				t.Fatalf("GetAction = %v, want a refused redirect that says what to set", err)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("the credential is in the message: %v", err)
			}
		})
	}
}
