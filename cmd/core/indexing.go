package main

import (
	"fmt"
	"io"
	"time"

	"github.com/corehq/core/backend"
)

// indexingNote tells a person at a terminal what a command waits on when
// its index pass takes a while (a first pass of a big repository reads
// every file): after a moment, one line on w that it rewrites as the pass
// goes and clears when it ends. Off a terminal it says nothing: a script
// reads only what the command prints.
func indexingNote(w io.Writer, tty bool, after, every time.Duration) func(progress func() backend.IndexProgress) (stop func()) {
	return func(progress func() backend.IndexProgress) func() {
		if !tty {
			return func() {}
		}
		done, finished := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(finished)
			wait := time.NewTimer(after)
			defer wait.Stop()
			select {
			case <-done:
				return
			case <-wait.C:
			}
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				fmt.Fprintf(w, "\r\x1b[Kcore: indexing the workspace: %s", describeProgress(progress()))
				select {
				case <-done:
					fmt.Fprint(w, "\r\x1b[K")
					return
				case <-tick.C:
				}
			}
		}()
		return func() { close(done); <-finished }
	}
}

// describeProgress says how far a pass has come, in words.
func describeProgress(p backend.IndexProgress) string {
	switch p.Phase {
	case backend.IndexParsing:
		return fmt.Sprintf("parsed %d of %d files…", p.Parsed, p.ToParse)
	case backend.IndexAssembling, backend.IndexDone:
		return fmt.Sprintf("building the graph of %d files…", p.Found)
	}
	return fmt.Sprintf("%d files found…", p.Found)
}
