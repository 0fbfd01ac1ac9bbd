package server

import (
	"errors"
	"net/netip"
	"slices"
	"testing"
)

func TestAShareListensOnTheDefaultRoutesInterfaceNotAVirtualOne(t *testing.T) {
	addr := netip.MustParseAddr
	docker := netIface{name: "docker0", up: true, addrs: []netip.Addr{addr("172.17.0.1")}}
	veth := netIface{name: "veth1a2b3c", up: true, addrs: []netip.Addr{addr("10.200.0.1")}}
	bridge := netIface{name: "lan-br", up: true, bridge: true, addrs: []netip.Addr{addr("10.0.3.1")}}
	wlan := netIface{name: "wlan0", up: true, addrs: []netip.Addr{addr("2001:db8::1"), addr("192.168.1.20")}}
	eth := netIface{name: "eth0", up: true, addrs: []netip.Addr{addr("10.1.2.3")}}
	public := netIface{name: "wan0", up: true, addrs: []netip.Addr{addr("203.0.113.9")}}
	down := netIface{name: "eth1", addrs: []netip.Addr{addr("192.168.9.9")}}
	lo := netIface{name: "lo", up: true, loopback: true, addrs: []netip.Addr{addr("127.0.0.1")}}
	for _, c := range []struct {
		name         string
		ifaces       []netIface
		defaultRoute string
		ip, iface    string
		others       []string
	}{
		{"the default route's interface, whatever comes first", []netIface{lo, docker, veth, eth, wlan}, "wlan0", "192.168.1.20", "wlan0",
			[]string{"10.1.2.3 (eth0)", "172.17.0.1 (docker0)", "10.200.0.1 (veth1a2b3c)"}},
		{"without a default route, an interface that is not virtual", []netIface{veth, bridge, down, eth}, "", "10.1.2.3", "eth0",
			[]string{"10.200.0.1 (veth1a2b3c)", "10.0.3.1 (lan-br)"}},
		{"a default route without a private address is passed over", []netIface{docker, public, eth}, "wan0", "10.1.2.3", "eth0",
			[]string{"172.17.0.1 (docker0)"}},
		{"a virtual interface when it is all there is", []netIface{lo, docker}, "", "172.17.0.1", "docker0", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := chooseShareAddress(c.ifaces, c.defaultRoute)
			if err != nil || got.ip.String() != c.ip || got.iface != c.iface || got.why == "" || !slices.Equal(got.others, c.others) {
				t.Errorf("%s on %s (%s), others %q, %v; want %s on %s, others %q", got.ip, got.iface, got.why, got.others, err, c.ip, c.iface, c.others)
			}
		})
	}
	if _, err := chooseShareAddress([]netIface{lo, public, down}, "wan0"); !errors.Is(err, ErrNoShareAddress) {
		t.Errorf("no private address: %v", err)
	}
}

func TestTheDefaultRouteIsTheOneWithTheLowestMetric(t *testing.T) {
	table := "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
		"wlan0\t00000000\t0101A8C0\t0003\t0\t0\t600\t00000000\t0\t0\t0\n" +
		"eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n" +
		"eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n" +
		"tun0\t00000000\t00000000\t0000\t0\t0\t0\t00000000\t0\t0\t0\n" // down
	if got := parseDefaultRoute(table); got != "eth0" {
		t.Errorf("default route on %q, want eth0", got)
	}
	if got := parseDefaultRoute("Iface\tDestination\n"); got != "" {
		t.Errorf("no route: %q", got)
	}
}
