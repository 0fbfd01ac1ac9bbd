package main

import (
	"strings"
	"testing"
	"time"

	"github.com/corehq/core/backend"
	"github.com/corehq/core/internal/index"
	"github.com/corehq/core/internal/testbed"
)

func TestALongIndexPassSaysHowFarItIsOnATerminalOnly(t *testing.T) {
	p := backend.IndexProgress{Phase: index.PhaseParsing, Found: 900, ToParse: 800, Parsed: 300}
	for _, tty := range []bool{true, false} {
		var out testbed.Buffer
		stop := indexingNote(&out, tty, time.Millisecond, time.Millisecond)(func() backend.IndexProgress { return p })
		deadline := time.Now().Add(10 * time.Second)
		for tty && !strings.Contains(out.String(), "parsed 300 of 800 files") && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(5 * time.Millisecond)
		stop()
		got := out.String()
		if !tty {
			if got != "" {
				t.Errorf("off a terminal: %q", got)
			}
			continue
		}
		if !strings.Contains(got, "core: indexing the workspace: parsed 300 of 800 files…") || !strings.HasSuffix(got, "\r\x1b[K") {
			t.Errorf("on a terminal: %q, want the progress, cleared at the end", got)
		}
	}
	quick := testbed.Buffer{}
	indexingNote(&quick, true, time.Hour, time.Millisecond)(func() backend.IndexProgress { return p })()
	if quick.String() != "" {
		t.Errorf("a quick pass said %q", quick.String())
	}
}
