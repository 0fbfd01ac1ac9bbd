package gateway

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/rs/cors"
	"github.com/rs/zerolog"

	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/caller"
	"github.com/corehq/core/internal/config"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/metrics"
)

// bodyReadTimeout bounds how long a client may take to send a request body.
const bodyReadTimeout = 30 * time.Second

// Authenticator resolves the Authorization header to a principal.
type Authenticator interface {
	Authenticate(authorization string) (auth.Principal, error)
}

// ListenerConfig says what one listener serves and to whom.
type ListenerConfig struct {
	// Exposure selects the rows: ExposureLoopback or ExposureShare.
	Exposure string
	// Port is the bound port; loopback origins must name it.
	Port string
	// HostedOrigin is the hosted console's origin ("" for none).
	HostedOrigin string
	// Own is the host:port a listener is reached at when it is not on
	// loopback (the share listener's LAN address). When set, the Host guard
	// admits it and no loopback name (a request that says it is for this
	// machine's loopback did not come through the share link), and the
	// Origin check admits the page's own origin http://<Own> instead of the
	// loopback origins.
	Own    string
	Tokens Authenticator
	// Kinds are the token kinds this listener accepts.
	Kinds []auth.Kind
	// MaxBody is the body limit of rows that set none.
	MaxBody int64
	// Keep, when set, drops the rows for which it is false (the console
	// routes when the console is disabled or the bind is not loopback).
	Keep func(*Row) bool
	// Dropped, when set, says why Keep dropped a row: a request to its
	// path is 404 with that message rather than "no such route", so that a
	// client learns the cause from the server that knows it (core doctor
	// asks /api/v1/graph without a token).
	Dropped func(*Row) string
	Log     zerolog.Logger
	// Metrics, when set, counts requests by status class.
	Metrics *metrics.Counters
	// AccessLog writes an access line for every request; without it only
	// requests answered with a 5xx (or a panic) are logged, so that no
	// client can grow the log at will.
	AccessLog bool
	// LoopbackPeersOnly refuses every request whose TCP peer is not a
	// loopback address: for a listener bound to a non-loopback address,
	// where a LAN peer could otherwise claim `Host: 127.0.0.1`.
	LoopbackPeersOnly bool
}

// Listener is the request pipeline in front of one mux.
type Listener struct {
	exposure   string
	exact      map[string]*route
	prefixes   []*route // longest first
	dropped    []dropped
	errHost    error // the Host guard's refusal, naming what this listener answers
	origins    originPolicy
	hostedHost string
	hostedPort string
	own        string
	tokens     Authenticator
	kinds      []auth.Kind
	peersOnly  bool
	cors       *cors.Cors
	corsHosted *cors.Cors
	corsAny    *cors.Cors
	noRoute    zerolog.Logger   // the access log of paths no row serves
	accessAll  bool             // log every request, not only the 5xx
	counts     [6]*atomic.Int64 // requests_total, then 1xx..5xx by status/100
}

// dropped is the path of a row Keep left out, with the 404 that says why.
type dropped struct {
	path   string
	prefix bool
	err    error
}

// route is every row of one path, compiled.
type route struct {
	name    string         // the first row's name, for the log of refused methods
	log     zerolog.Logger // with the listener's and that name's fields
	path    string
	prefix  bool
	hosted  bool
	anyOrig bool // no Host guard, no Origin check, CORS for every origin
	public  bool
	connect bool
	allow   string
	get     *endpoint
	post    *endpoint
}

func (rt *route) endpoint(method string) *endpoint {
	switch method {
	case http.MethodGet:
		return rt.get
	case http.MethodPost:
		return rt.post
	}
	return nil
}

type endpoint struct {
	name    string
	log     zerolog.Logger // with the listener's and the row's fields
	grant   auth.Grant
	peer    bool
	maxBody int64
	fn      HandlerFunc
	h       http.Handler
}

// NewListener compiles the rows of t exposed on cfg.Exposure into a handler.
func NewListener(t *Table, reg *Registry, cfg ListenerConfig) (*Listener, error) {
	l := &Listener{
		exposure:  cfg.Exposure,
		exact:     map[string]*route{},
		origins:   originPolicy{port: cfg.Port},
		own:       cfg.Own,
		tokens:    cfg.Tokens,
		kinds:     cfg.Kinds,
		peersOnly: cfg.LoopbackPeersOnly,
		noRoute:   routeLog(cfg.Log, cfg.Exposure, "-"),
		accessAll: cfg.AccessLog,
		errHost:   errForbiddenHost,
	}
	if cfg.HostedOrigin != "" {
		u, err := config.ParseOrigin(cfg.HostedOrigin)
		if err != nil {
			return nil, fmt.Errorf("hosted origin %q: %w", cfg.HostedOrigin, err)
		}
		o, ok := parseOrigin(u.String())
		if !ok {
			return nil, fmt.Errorf("hosted origin %q does not parse", cfg.HostedOrigin)
		}
		l.origins.hosted = &o
		l.hostedHost, l.hostedPort = o.host, o.port
	}
	if cfg.Metrics != nil {
		l.counts[0] = cfg.Metrics.Counter("requests_total")
		for i := 1; i <= 5; i++ {
			l.counts[i] = cfg.Metrics.Counter("requests_" + strconv.Itoa(i) + "xx")
		}
	}
	if cfg.Own != "" {
		o, ok := parseOrigin("http://" + cfg.Own)
		if !ok {
			return nil, fmt.Errorf("own address %q is not host:port", cfg.Own)
		}
		l.origins.own = &o
		// The share listener admits its own address alone: its refusal
		// names it, not the loopback names it refuses too.
		l.errHost = forbiddenHost("this listener answers " + cfg.Own + " only")
	}
	l.cors = newCORS(func(o string) bool { return l.origins.corsAllowed(o, false) })
	l.corsHosted = newCORS(func(o string) bool { return l.origins.corsAllowed(o, true) })
	l.corsAny = newCORS(func(string) bool { return true })

	rows := t.Select(cfg.Exposure, cfg.Keep)
	for i := range rows {
		row := &rows[i]
		ep := &endpoint{name: row.Name, log: routeLog(cfg.Log, cfg.Exposure, row.Name), grant: row.Grant, peer: row.LoopbackPeer, maxBody: row.MaxBody}
		if ep.maxBody == 0 {
			ep.maxBody = cfg.MaxBody
		}
		if row.Procedure != "" {
			if svc, ok := reg.services[row.Handler]; ok {
				_, ep.h = svc.build(connect.WithReadMaxBytes(int(ep.maxBody)))
			}
		} else {
			ep.fn = reg.plain[row.Handler]
		}
		if ep.h == nil && ep.fn == nil {
			return nil, fmt.Errorf("row %d (%s): handler %q is not registered", row.Index, row.Name, row.Handler)
		}
		rt := l.exact[row.Path]
		if rt == nil {
			rt = &route{name: row.Name, log: ep.log, path: row.Path, prefix: row.Prefix, hosted: row.Hosted, anyOrig: row.AnyOrigin, public: row.Public(), connect: row.Procedure != ""}
			l.exact[row.Path] = rt
			if row.Prefix {
				l.prefixes = append(l.prefixes, rt)
			}
		}
		switch row.Method {
		case http.MethodGet:
			rt.get = ep
		case http.MethodPost:
			rt.post = ep
		}
	}
	for _, rt := range l.exact {
		var allow []string
		if rt.get != nil {
			allow = append(allow, http.MethodGet)
		}
		if rt.post != nil {
			allow = append(allow, http.MethodPost)
		}
		rt.allow = strings.Join(allow, ", ")
	}
	sort.Slice(l.prefixes, func(i, j int) bool { return len(l.prefixes[i].path) > len(l.prefixes[j].path) })
	if cfg.Keep != nil && cfg.Dropped != nil {
		for i := range t.Rows {
			row := &t.Rows[i]
			if row.Exposed(cfg.Exposure) && !cfg.Keep(row) {
				if why := cfg.Dropped(row); why != "" {
					l.dropped = append(l.dropped, dropped{path: row.Path, prefix: row.Prefix, err: notMounted(why)})
				}
			}
		}
	}
	return l, nil
}

// droppedErr is the 404 of a path whose row Keep dropped, nil for any
// other path.
func (l *Listener) droppedErr(path string) error {
	for _, d := range l.dropped {
		if path == d.path || d.prefix && strings.HasPrefix(path, d.path) {
			return d.err
		}
	}
	return nil
}

func newCORS(allowed func(string) bool) *cors.Cors {
	return cors.New(cors.Options{
		AllowOriginFunc:     allowed,
		AllowedMethods:      []string{http.MethodGet, http.MethodPost},
		AllowedHeaders:      []string{"Authorization", "Content-Type", "Connect-Protocol-Version", "Connect-Timeout-Ms", "Last-Event-Id", "Mcp-Protocol-Version", "Mcp-Session-Id"},
		ExposedHeaders:      []string{"WWW-Authenticate", "ETag", "Mcp-Session-Id"},
		AllowPrivateNetwork: true,
		MaxAge:              600,
	})
}

// routeLog is a logger carrying a listener's and a route's fields, made once
// per route so that no request pays for them.
func routeLog(log zerolog.Logger, listener, route string) zerolog.Logger {
	return log.With().Str(logx.Listener, listener).Str(logx.Route, route).Logger()
}

// match finds the route of a path: an exact row first, then the longest
// prefix row.
func (l *Listener) match(path string) *route {
	if rt, ok := l.exact[path]; ok && !rt.prefix {
		return rt
	}
	for _, rt := range l.prefixes {
		if strings.HasPrefix(path, rt.path) {
			return rt
		}
	}
	return nil
}

// ServeHTTP is the whole pipeline, in its fixed order: recover, access
// log, Host guard, Origin check, CORS and Private Network Access (preflights
// end there), then the route: authenticate, method, grant, loopback peer,
// body limit, and the handler, with the caller's identity and a logger in
// the request's context. An any_origin row (/mcp) skips the Host guard and
// the Origin check and answers every origin's CORS: its token is its guard.
func (l *Listener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := getRecorder(w)
	start := time.Now()
	rt := l.match(r.URL.Path)
	var ep *endpoint
	rec.log = &l.noRoute
	if rt != nil {
		rec.log = &rt.log
		if ep = rt.endpoint(r.Method); ep != nil {
			rec.log = &ep.log
		}
	}
	defer l.finish(rec, r, rt, start)

	hosted := rt != nil && rt.hosted
	anyOrigin := rt != nil && rt.anyOrig
	if !anyOrigin && !l.hostAllowed(r.Host, hosted) {
		writeError(rec, r, rt, l.errHost)
		return
	}
	// One Origin at most: with two, CORS would answer for both.
	if o := r.Header.Values("Origin"); !anyOrigin && (len(o) > 1 || len(o) == 1 && o[0] != "" && !l.origins.allowed(o[0], hosted)) {
		writeError(rec, r, rt, errForbiddenOrigin)
		return
	}
	c := l.cors
	switch {
	case anyOrigin:
		c = l.corsAny
	case hosted:
		c = l.corsHosted
	}
	c.HandlerFunc(rec, r)
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		return // a preflight; rs/cors answered it
	}
	if rt == nil {
		if err := l.droppedErr(r.URL.Path); err != nil {
			writeError(rec, r, rt, err)
			return
		}
		writeError(rec, r, rt, errNotFound)
		return
	}
	hasBody := r.Body != nil && r.Body != http.NoBody
	if hasBody {
		// The server has no ReadTimeout (it would cut SSE streams), so a
		// body gets its own deadline, before anything else reads it.
		_ = http.NewResponseController(rec).SetReadDeadline(time.Now().Add(bodyReadTimeout))
	}
	var p auth.Principal
	if !rt.public {
		var err error
		if p, err = l.tokens.Authenticate(r.Header.Get("Authorization")); err != nil {
			writeError(rec, r, rt, unauthenticated(err))
			return
		}
		if !l.kindAccepted(p.Kind) {
			writeError(rec, r, rt, errKind)
			return
		}
		rec.authed = true
	}
	if ep == nil {
		rec.Header().Set("Allow", rt.allow)
		writeError(rec, r, rt, errMethod)
		return
	}
	if !p.Grants.Has(ep.grant) {
		writeError(rec, r, rt, errGrant)
		return
	}
	if (ep.peer || l.peersOnly) && !loopbackPeer(r.RemoteAddr) {
		writeError(rec, r, rt, errPeer)
		return
	}
	if r.ContentLength > ep.maxBody {
		writeError(rec, r, rt, &http.MaxBytesError{Limit: ep.maxBody})
		return
	}
	if hasBody {
		// The real ResponseWriter, so that net/http learns the limit was hit
		// and closes the connection instead of reading the rest as a request.
		r.Body = http.MaxBytesReader(rec.w, r.Body, ep.maxBody)
	}
	rq := withCall(r, caller.Call{Principal: p, Listener: l.exposure, Route: ep.name, Path: rt.path, Log: &ep.log})
	// The request's context ends when its token dies (revoked, expired):
	// an event stream or a blocked call ends with it. End lets go of the
	// token once the handler is done.
	defer rq.ctx.End()
	r = &rq.req
	if ep.h != nil {
		ep.h.ServeHTTP(rec, r)
		return
	}
	if err := ep.fn(rec, r); err != nil {
		writeError(rec, r, rt, err)
	}
}

// finish recovers a panic into a 500, counts the request and writes its
// access line (every request's with AccessLog, else a 5xx's only). The
// line holds the method, the route's name, the status and the latency:
// never a header, a token, a query value or a body.
func (l *Listener) finish(rec *recorder, r *http.Request, rt *route, start time.Time) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			putRecorder(rec)
			panic(v)
		}
		rec.log.Error().Str(logx.Panic, fmt.Sprint(v)).Str(logx.Stack, string(debug.Stack())).Msg("handler panicked")
		writeError(rec, r, rt, errInternal)
	}
	status := rec.status
	if !rec.wroteHeader {
		status = http.StatusOK
	}
	if l.counts[0] != nil {
		l.counts[0].Add(1)
		if c := status / 100; c >= 1 && c <= 5 {
			l.counts[c].Add(1)
		}
	}
	if l.accessAll || status >= 500 {
		ev := rec.log.Info()
		if status >= 500 {
			ev = rec.log.Warn()
		}
		ev.Str(logx.Method, logx.SafeMethod(r.Method)).
			Int(logx.Status, status).
			Dur(logx.Latency, time.Since(start)).
			Msg("request")
	}
	putRecorder(rec)
}

func (l *Listener) hostAllowed(host string, hosted bool) bool {
	if hosted && l.hostedHost != "" && hostMatches(host, l.hostedHost, l.hostedPort, "443") {
		return true
	}
	if l.own != "" {
		return strings.EqualFold(host, l.own)
	}
	return IsLoopbackHost(host)
}

func (l *Listener) kindAccepted(k auth.Kind) bool { return slices.Contains(l.kinds, k) }

// request is a request with its caller's context, in one allocation.
type request struct {
	ctx caller.Context
	req http.Request
}

// withCall returns r with call in its context (c.req). The copy
// WithContext makes stays on the stack: the one allocation is the request
// struct, so that the identity in the context costs the read route a
// single allocation.
func withCall(r *http.Request, call caller.Call) *request {
	c := &request{}
	c.ctx.Init(r.Context(), call)
	c.req = *r.WithContext(&c.ctx)
	return c
}

func loopbackPeer(remote string) bool {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		host, _, err := net.SplitHostPort(remote)
		if err != nil {
			return false
		}
		a, err := netip.ParseAddr(host)
		return err == nil && a.Unmap().IsLoopback()
	}
	return ap.Addr().Unmap().IsLoopback()
}
