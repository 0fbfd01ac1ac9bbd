package main

import (
	"strings"
	"testing"

	"github.com/corehq/core/backend"
)

func TestCoreShareSaysWhichAddressItTookAndHowToChooseAnother(t *testing.T) {
	for _, c := range []struct {
		info    backend.ShareInfo
		want    []string
		wantNot string
	}{
		{backend.ShareInfo{Address: "192.168.1.20:41234", Interface: "wlan0", Chosen: "the interface of the default route", Others: []string{"172.17.0.1 (docker0)"}},
			[]string{"192.168.1.20 on wlan0 (the interface of the default route)", "172.17.0.1 (docker0)", "CORE_SHARE_ADDRESS=IP"}, ":41234"},
		{backend.ShareInfo{Address: "10.0.0.5:41234", Chosen: "share.address"},
			[]string{"10.0.0.5, from share.address"}, "CORE_SHARE_ADDRESS"},
	} {
		got := shareAddressLine(c.info)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q lacks %q", got, w)
			}
		}
		if strings.Contains(got, c.wantNot) {
			t.Errorf("%q holds %q", got, c.wantNot)
		}
	}
}
