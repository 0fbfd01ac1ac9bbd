package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/corehq/core/gateway"
	"github.com/corehq/core/internal/apierr"
	"github.com/corehq/core/internal/auth"
	"github.com/corehq/core/internal/logx"
	"github.com/corehq/core/internal/metrics"
	"github.com/corehq/core/internal/share"
)

// shares runs the share listener: at most one at a time, on a LAN address
// and an ephemeral port, serving the rows of routes.yaml exposed on share
// and nothing else, behind one fresh read-only token, until its time box
// ends, a new share supersedes it, or it is stopped. Then the listener and
// its open streams close and the token dies.
type shares struct {
	table    *gateway.Table
	reg      *gateway.Registry
	tokens   *auth.Store
	address  string // share.address; "" picks the first private IPv4
	maxBody  int64
	hosted   string
	log      zerolog.Logger
	counters *metrics.Counters
	timeouts gateway.Timeouts

	mu  sync.Mutex
	cur *openShare
}

type openShare struct {
	info   share.Info
	p      auth.Principal
	srv    *http.Server
	timer  *time.Timer
	closed chan struct{}
}

// shareAuth accepts the one token of the share it guards.
type shareAuth struct {
	tokens *auth.Store
	id     string
}

func (a shareAuth) Authenticate(h string) (auth.Principal, error) {
	p, err := a.tokens.Authenticate(h)
	if err != nil {
		return p, err
	}
	if p.ID != a.id {
		return auth.Principal{}, auth.ErrUnknown
	}
	return p, nil
}

// ErrNoShareAddress says the machine has no address a colleague could reach.
var ErrNoShareAddress = errors.New("this machine has no private IPv4 address that is up (10/8, 172.16/12, 192.168/16), so nothing on the network could reach a share: set share.address (CORE_SHARE_ADDRESS) to the address to share on")

// Open starts a share for ttl, superseding the open one.
func (s *shares) Open(ttl time.Duration) (share.Info, error) {
	ip, err := s.pickAddress()
	if errors.Is(err, ErrNoShareAddress) {
		return share.Info{}, apierr.FailedPrecondition("%v", err)
	}
	if err != nil {
		return share.Info{}, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip.String(), "0"))
	if err != nil {
		return share.Info{}, fmt.Errorf("cannot listen on %s for the share: %w", ip, err)
	}
	addr := ln.Addr().String()
	secret := s.tokens.Mint(auth.KindShare, auth.ConsoleRead, ttl)
	p, err := s.tokens.Authenticate("Bearer " + secret)
	if err != nil {
		_ = ln.Close()
		return share.Info{}, err
	}
	l, err := gateway.NewListener(s.table, s.reg, gateway.ListenerConfig{
		Exposure:     gateway.ExposureShare,
		Port:         strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
		Own:          addr,
		HostedOrigin: s.hosted,
		Tokens:       shareAuth{tokens: s.tokens, id: p.ID},
		Kinds:        []auth.Kind{auth.KindShare},
		MaxBody:      s.maxBody,
		Keep:         Keep(true),
		Log:          s.log,
		Metrics:      s.counters,
	})
	if err != nil {
		_ = ln.Close()
		s.tokens.Redeem(p)
		return share.Info{}, err
	}
	sh := &openShare{p: p, srv: gateway.NewHTTPServer(l, s.timeouts, s.log), closed: make(chan struct{})}
	sh.info = share.Info{
		Active:  true,
		URL:     "http://" + addr + ConsolePath() + "#token=" + url.QueryEscape(secret),
		Address: addr,
		Expires: time.Now().Add(ttl).UTC().Truncate(time.Second),
		TokenID: p.ID,
	}
	go func() {
		defer close(sh.closed)
		_ = sh.srv.Serve(ln)
	}()

	s.mu.Lock()
	old := s.cur
	s.cur = sh
	sh.timer = time.AfterFunc(ttl, func() { s.end(sh, "its time box ended") })
	s.mu.Unlock()
	if old != nil {
		sh.info.Superseded = old.info.Address
		s.close(old, "a new share superseded it")
	}
	s.log.Info().Str(logx.Address, addr).Str(logx.Token, p.ID).Time("expires", sh.info.Expires).Msg("share opened")
	return sh.info, nil
}

// Status is the open share, if any.
func (s *shares) Status() share.Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return share.Info{}
	}
	return s.cur.info
}

// Stop ends the open share; it reports whether there was one.
func (s *shares) Stop() bool {
	s.mu.Lock()
	sh := s.cur
	s.mu.Unlock()
	if sh == nil {
		return false
	}
	s.end(sh, "it was stopped")
	return true
}

// end closes sh if it is still the open share.
func (s *shares) end(sh *openShare, why string) {
	s.mu.Lock()
	if s.cur != sh {
		s.mu.Unlock()
		return
	}
	s.cur = nil
	s.mu.Unlock()
	s.close(sh, why)
}

// close retires a share: its token dies first (no new request passes),
// then the listener and every open connection, streams included, close.
func (s *shares) close(sh *openShare, why string) {
	sh.timer.Stop()
	s.tokens.Redeem(sh.p)
	_ = sh.srv.Close()
	<-sh.closed
	s.log.Info().Str(logx.Address, sh.info.Address).Str(logx.Reason, why).Msg("share closed")
}

// Shutdown closes the open share with the server.
func (s *shares) Shutdown(context.Context) { s.Stop() }

// pickAddress is share.address, or the first private IPv4 of an interface
// that is up.
func (s *shares) pickAddress() (netip.Addr, error) {
	if s.address != "" {
		a, err := netip.ParseAddr(s.address)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("share.address %q is not an IP address", s.address)
		}
		return a, nil
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		return netip.Addr{}, err
	}
	for _, ifc := range ifaces {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			ip, ok := netip.AddrFromSlice(ipn.IP)
			if ok && ip.Unmap().Is4() && ip.IsPrivate() {
				return ip.Unmap(), nil
			}
		}
	}
	return netip.Addr{}, ErrNoShareAddress
}
