package logx

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestTheLogIsTextForConsoleAndJSONOtherwiseOffATerminal(t *testing.T) {
	for _, c := range []struct {
		format string
		json   bool
	}{
		{"console", false},
		{"json", true},
		{"auto", true}, // a buffer is not a terminal
		{"", true},
	} {
		t.Run(c.format, func(t *testing.T) {
			var b bytes.Buffer
			log := New(&b, "info", c.format)
			log.Info().Str(Workspace, "/ws").Msg("indexing")
			line := b.String()
			var obj map[string]any
			isJSON := json.Unmarshal(b.Bytes(), &obj) == nil
			if isJSON != c.json {
				t.Fatalf("format %q wrote %q, JSON: %v, want %v", c.format, line, isJSON, c.json)
			}
			if !c.json && (!strings.Contains(line, "INF indexing") || !strings.Contains(line, "workspace=/ws")) {
				t.Errorf("console text: %q", line)
			}
			if strings.Contains(line, "\x1b[") {
				t.Errorf("colour without a terminal: %q", line)
			}
		})
	}
}
