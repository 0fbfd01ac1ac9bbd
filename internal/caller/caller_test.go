package caller_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/caller"
)

func TestAContextWithoutACall(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if c, ok := caller.From(ctx); ok || c != nil {
		t.Errorf("From = %v, %v; want nil, false", c, ok)
	}
	if p, ok := caller.Principal(ctx); ok || p != (auth.Principal{}) {
		t.Errorf("Principal = %+v, %v; want the zero principal, false", p, ok)
	}
	log := caller.Log(ctx)
	if log == nil {
		t.Fatal("Log is nil")
	}
	for _, l := range []zerolog.Level{zerolog.TraceLevel, zerolog.DebugLevel, zerolog.InfoLevel, zerolog.WarnLevel, zerolog.ErrorLevel, zerolog.FatalLevel, zerolog.PanicLevel, zerolog.NoLevel} {
		if log.WithLevel(l).Enabled() {
			t.Errorf("the logger of a context without a call writes at level %v", l)
		}
	}
}

func TestACallWithoutALoggerLogsNothing(t *testing.T) {
	t.Parallel()
	ctx := caller.With(context.Background(), caller.Call{Route: "graph.read"})
	if caller.Log(ctx).Error().Enabled() {
		t.Error("a call without a logger got one that writes")
	}
}

func TestTheCallsLoggerIsTheRequestsLogger(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := zerolog.New(&buf).With().Str("route", "graph.read").Logger()
	ctx := caller.With(context.Background(), caller.Call{Log: &log})
	if caller.Log(ctx) != &log {
		t.Fatal("Log is not the call's logger")
	}
	caller.Log(ctx).Info().Msg("served")
	if !strings.Contains(buf.String(), `"route":"graph.read"`) || !strings.Contains(buf.String(), `"served"`) {
		t.Errorf("logged %q", buf.String())
	}
}

func TestPrincipal(t *testing.T) {
	t.Parallel()
	admin := auth.Principal{ID: "tok-1", Kind: auth.KindAdmin, Grants: auth.ConsoleRead}
	cases := []struct {
		name string
		call caller.Call
		want auth.Principal
		ok   bool
	}{
		{"a public call has none", caller.Call{Route: "console.page", Path: "/console/graph/"}, auth.Principal{}, false},
		{"a principal without a kind is not authenticated", caller.Call{Principal: auth.Principal{ID: "x", Grants: auth.ConsoleRead}}, auth.Principal{}, false},
		{"an authenticated call has its token's owner", caller.Call{Principal: admin, Route: "graph.read"}, admin, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := caller.With(context.Background(), c.call)
			p, ok := caller.Principal(ctx)
			if ok != c.ok || p != c.want {
				t.Errorf("Principal = %+v, %v; want %+v, %v", p, ok, c.want, c.ok)
			}
			got, found := caller.From(ctx)
			if !found || got.Route != c.call.Route || got.Path != c.call.Path || got.Authenticated() != c.ok {
				t.Errorf("From = %+v, %v; want the call", got, found)
			}
		})
	}
}

type parentKey struct{}

func TestACallerContextIsAChildOfItsParent(t *testing.T) {
	t.Parallel()
	t.Run("the parent's values resolve through it", func(t *testing.T) {
		t.Parallel()
		parent := context.WithValue(context.Background(), parentKey{}, "from the parent")
		ctx := caller.With(parent, caller.Call{Route: "graph.read"})
		if v := ctx.Value(parentKey{}); v != "from the parent" {
			t.Errorf("Value = %v", v)
		}
		if ctx.Value("other") != nil {
			t.Error("an unknown key resolved")
		}
	})
	t.Run("the parent's cancellation reaches it", func(t *testing.T) {
		t.Parallel()
		cause := errors.New("the client left")
		parent, cancel := context.WithCancelCause(context.Background())
		ctx := caller.With(parent, caller.Call{Route: "graph.read"})
		if ctx.Err() != nil {
			t.Fatal("done before its parent")
		}
		cancel(cause)
		<-ctx.Done()
		if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != cause {
			t.Errorf("Err %v, Cause %v", ctx.Err(), context.Cause(ctx))
		}
	})
	t.Run("the parent's deadline is its deadline", func(t *testing.T) {
		t.Parallel()
		deadline := time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
		parent, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		if d, ok := caller.With(parent, caller.Call{}).Deadline(); !ok || !d.Equal(deadline) {
			t.Errorf("Deadline = %v, %v", d, ok)
		}
	})
	t.Run("the call resolves through contexts derived from it", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(caller.With(context.Background(), caller.Call{Route: "graph.read"}))
		defer cancel()
		ctx = context.WithValue(ctx, parentKey{}, 1)
		if c, ok := caller.From(ctx); !ok || c.Route != "graph.read" {
			t.Errorf("From = %+v, %v", c, ok)
		}
	})
	t.Run("the innermost call wins", func(t *testing.T) {
		t.Parallel()
		outer := caller.With(context.Background(), caller.Call{Route: "outer"})
		inner := caller.With(outer, caller.Call{Route: "inner"})
		if c, _ := caller.From(inner); c.Route != "inner" {
			t.Errorf("From(inner).Route = %q", c.Route)
		}
		if c, _ := caller.From(outer); c.Route != "outer" {
			t.Errorf("From(outer).Route = %q", c.Route)
		}
	})
}

// TestARequestsContextEndsWithItsToken: an event stream, a blocked call or
// a command run for a request waits on a context derived from the
// request's; when the token dies, all of them end, with the token's death
// as the cause, and nothing else had to check.
func TestARequestsContextEndsWithItsToken(t *testing.T) {
	t.Parallel()
	store, err := auth.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mint := func() auth.Principal {
		p, err := store.Authenticate("Bearer " + store.Mint(auth.KindShare, auth.ConsoleRead, time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	t.Run("a context derived from it ends when the token is revoked", func(t *testing.T) {
		p := mint()
		ctx := caller.With(context.Background(), caller.Call{Principal: p})
		stream, cancel := context.WithCancel(ctx)
		defer cancel()
		store.Redeem(p)
		select {
		case <-stream.Done():
		case <-time.After(30 * time.Second):
			t.Fatal("still open after the token died")
		}
		if !errors.Is(context.Cause(stream), auth.ErrRevoked) || !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("cause %v, err %v", context.Cause(stream), ctx.Err())
		}
		if c, ok := caller.From(stream); !ok || c.Principal.ID != p.ID {
			t.Error("the call is lost through the ending context")
		}
	})
	t.Run("Err says so without Done being asked first", func(t *testing.T) {
		p := mint()
		ctx := caller.With(context.Background(), caller.Call{Principal: p})
		store.Redeem(p)
		deadline := time.Now().Add(30 * time.Second)
		for ctx.Err() == nil && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		if !errors.Is(context.Cause(ctx), auth.ErrRevoked) {
			t.Errorf("cause %v", context.Cause(ctx))
		}
	})
	t.Run("a request that has ended no longer follows its token", func(t *testing.T) {
		p := mint()
		c := &caller.Context{}
		c.Init(context.Background(), caller.Call{Principal: p})
		_ = c.Done()
		c.End()
		if !errors.Is(c.Err(), context.Canceled) || errors.Is(context.Cause(c), auth.ErrRevoked) {
			t.Errorf("after End: err %v, cause %v", c.Err(), context.Cause(c))
		}
	})
	t.Run("a call whose principal cannot die waits on its parent alone", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		defer cancel()
		ctx := caller.With(parent, caller.Call{Principal: auth.Principal{ID: "tok_x", Kind: auth.KindConsole}})
		if ctx.Done() != parent.Done() {
			t.Error("a context made for a principal that cannot die")
		}
	})
}
