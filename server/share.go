package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	chosen, err := s.pickAddress()
	ip := chosen.ip
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

		Interface: chosen.iface,
		Chosen:    chosen.why,
		Others:    chosen.others,
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

// shareAddress is the address a share listens on, and why it was chosen.
type shareAddress struct {
	ip     netip.Addr
	iface  string   // the interface holding it ("" for share.address)
	why    string   // why this one
	others []string // the other candidates, "IP (interface)"
}

// pickAddress is share.address, or the private IPv4 address of the
// interface of the default route, else of the first other interface that
// is up and not virtual (veth, bridge, docker), else of a virtual one.
func (s *shares) pickAddress() (shareAddress, error) {
	if s.address != "" {
		a, err := netip.ParseAddr(s.address)
		if err != nil {
			return shareAddress{}, fmt.Errorf("share.address %q is not an IP address", s.address)
		}
		return shareAddress{ip: a, why: "share.address"}, nil
	}
	ifaces, err := net.Interfaces()
	if err != nil {
		return shareAddress{}, err
	}
	var list []netIface
	for _, ifc := range ifaces {
		n := netIface{name: ifc.Name, up: ifc.Flags&net.FlagUp != 0, loopback: ifc.Flags&net.FlagLoopback != 0, bridge: isBridge(ifc.Name)}
		if addrs, err := ifc.Addrs(); err == nil {
			for _, a := range addrs {
				if ipn, ok := a.(*net.IPNet); ok {
					if ip, ok := netip.AddrFromSlice(ipn.IP); ok {
						n.addrs = append(n.addrs, ip.Unmap())
					}
				}
			}
		}
		list = append(list, n)
	}
	return chooseShareAddress(list, defaultRouteInterface())
}

// netIface is what choosing a share's address needs of an interface.
type netIface struct {
	name         string
	up, loopback bool
	bridge       bool
	addrs        []netip.Addr
}

// virtualPrefixes name the interfaces of containers, VMs and bridges: a
// colleague's machine is seldom behind one.
var virtualPrefixes = []string{"veth", "docker", "br-", "virbr", "cni", "flannel", "cali", "podman", "lxcbr", "lxdbr", "vmnet", "vboxnet", "tailscale"}

func (n netIface) virtual() bool {
	if n.bridge {
		return true
	}
	for _, p := range virtualPrefixes {
		if strings.HasPrefix(n.name, p) {
			return true
		}
	}
	return false
}

// chooseShareAddress picks among the private IPv4 addresses of the
// interfaces that are up: the default route's interface first, then one
// that is not virtual, then a virtual one.
func chooseShareAddress(ifaces []netIface, defaultIface string) (shareAddress, error) {
	type cand struct {
		ip    netip.Addr
		iface string
		rank  int // 0 the default route's, 1 another, 2 a virtual one
	}
	var cands []cand
	for _, n := range ifaces {
		if !n.up || n.loopback {
			continue
		}
		rank := 1
		switch {
		case n.name == defaultIface && defaultIface != "":
			rank = 0
		case n.virtual():
			rank = 2
		}
		for _, ip := range n.addrs {
			if ip.Is4() && ip.IsPrivate() {
				cands = append(cands, cand{ip, n.name, rank})
			}
		}
	}
	if len(cands) == 0 {
		return shareAddress{}, ErrNoShareAddress
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return a.rank - b.rank })
	best := cands[0]
	out := shareAddress{ip: best.ip, iface: best.iface}
	switch best.rank {
	case 0:
		out.why = "the interface of the default route"
	case 1:
		out.why = "the first interface that is up and not virtual"
	default:
		out.why = "only virtual interfaces (containers, bridges) have a private address"
	}
	for _, c := range cands[1:] {
		out.others = append(out.others, c.ip.String()+" ("+c.iface+")")
	}
	return out, nil
}

// isBridge reports whether a Linux interface is a bridge.
func isBridge(name string) bool {
	if name == "" || strings.ContainsAny(name, "/.") {
		return false
	}
	_, err := os.Stat(filepath.Join("/sys/class/net", name, "bridge"))
	return err == nil
}

// defaultRouteInterface is the interface of the IPv4 default route with
// the lowest metric (Linux: /proc/net/route), "" when unknown.
func defaultRouteInterface() string {
	f, err := os.Open("/proc/net/route")
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return ""
	}
	return parseDefaultRoute(string(data))
}

// parseDefaultRoute reads /proc/net/route: Iface, Destination, Gateway,
// Flags, RefCnt, Use, Metric, ... in hex; a default route has destination
// and mask 0 and is up (flag 1).
func parseDefaultRoute(table string) string {
	best, bestMetric := "", -1
	for i, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 8 || f[1] != "00000000" || f[7] != "00000000" {
			continue
		}
		flags, err := strconv.ParseUint(f[3], 16, 32)
		if err != nil || flags&1 == 0 {
			continue
		}
		metric, err := strconv.Atoi(f[6])
		if err != nil {
			continue
		}
		if bestMetric < 0 || metric < bestMetric {
			best, bestMetric = f[0], metric
		}
	}
	return best
}
