package auth

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watch reloads tokens.json whenever it changes, so a token revoked by the
// CLI (another process) stops working in the server, and what its requests
// hold open (its Lifetime: event streams, blocked MCP calls) ends. It
// watches the cache directory rather than the file because every write
// replaces the file by rename; and, in case the file system's events miss
// one, it also stats the file every pollEvery. Reload failures and watcher
// errors go to onError (which may be nil) and the last good set of tokens
// stays in force. Watch returns nil when ctx ends, or an error if the watch
// cannot be set up.
func (s *Store) Watch(ctx context.Context, onError func(error)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch tokens in %s: %w", s.dir, err)
	}
	defer func() { _ = w.Close() }()
	if err := w.Add(s.dir); err != nil {
		return fmt.Errorf("watch tokens in %s: %w", s.dir, err)
	}
	report := func(err error) {
		if err != nil && onError != nil {
			onError(err)
		}
	}
	// Catch a change made between OpenStore and the watch taking effect.
	if s.currentID() != s.persist.Load().seen {
		report(s.Reload())
	}
	poll := time.NewTicker(pollEvery)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
			if s.currentID() != s.persist.Load().seen {
				report(s.Reload())
			}
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if filepath.Base(ev.Name) == filepath.Base(s.path) {
				report(s.Reload())
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			report(fmt.Errorf("watch tokens in %s: %w", s.dir, err))
		}
	}
}

// pollEvery bounds how long a revocation by another process goes unnoticed
// when the file system's events miss it: within a second, what the token
// holds open has ended.
const pollEvery = 500 * time.Millisecond
