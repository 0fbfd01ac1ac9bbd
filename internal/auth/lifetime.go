package auth

import "time"

// Lifetimes fixed by the spec (a console token lives 12 hours) and by our
// own decisions (docs/decisions.md).
const (
	// ConsoleTokenTTL is the lifetime of a console token traded for a
	// pairing code, and the default of `core config console token create`.
	ConsoleTokenTTL = 12 * time.Hour
	// PairTTL is how long a pairing link stays usable.
	PairTTL = 5 * time.Minute
	// MCPTokenTTL is the default lifetime of `core config mcp token
	// create`: an agent's setup outlives a working day.
	MCPTokenTTL = 30 * 24 * time.Hour
	// MaxTokenTTL caps the lifetime a persistent token may be created with.
	MaxTokenTTL = 90 * 24 * time.Hour
)
