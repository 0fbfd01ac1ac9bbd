package remotecache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// probeKey is an action key nothing has: asking for it shows whether the
// server answers (a 404 is the healthy answer).
const probeKey = "0000000000000000000000000000000000000000000000000000000000000000"

// Check asks the server whether core can use it: reachable (and accepting
// the credential), and in read-write mode, writable (a small blob is stored
// and read back). It returns what it checked, for core doctor.
func (c *Client) Check(ctx context.Context) (string, error) {
	if _, err := c.GetAction(ctx, probeKey); err != nil && !errors.Is(err, ErrNotFound) {
		return "", err
	}
	if !c.Writable() {
		return "reachable (read)", nil
	}
	host, _ := os.Hostname()
	probe := fmt.Appendf(nil, "core doctor write probe from %s at %s\n", host, time.Now().UTC().Format(time.RFC3339Nano))
	d := DigestOf(probe)
	if err := c.PutBlob(ctx, d, bytes.NewReader(probe)); err != nil {
		return "", err
	}
	var back bytes.Buffer
	if err := c.GetBlob(ctx, d, &back); err != nil {
		return "", fmt.Errorf("remote cache: a blob just stored does not read back: %w", err)
	}
	return "reachable, writable (read-write)", nil
}
