package runner

import (
	"bytes"
	"io"
	"sync"
)

// prefixWriter copies a target's output to the shared live writer, one
// whole line at a time under the writer's lock, each line prefixed, so
// concurrent targets never interleave inside a line.
type prefixWriter struct {
	out    *lockedWriter
	prefix []byte
	line   []byte
}

const maxLine = 64 << 10

// Write takes any chunk of output and emits whole lines.
func (w *prefixWriter) Write(p []byte) (int, error) {
	w.write(p)
	return len(p), nil
}

// Flush emits an unfinished last line.
func (w *prefixWriter) Flush() { w.flush() }

func (w *prefixWriter) write(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.line = append(w.line, p...)
			if len(w.line) >= maxLine {
				w.emit(append(w.line, '\n'))
			}
			return
		}
		w.emit(append(w.line, p[:i+1]...))
		p = p[i+1:]
	}
}

func (w *prefixWriter) emit(line []byte) {
	w.out.writeLine(w.prefix, line)
	w.line = w.line[:0]
}

func (w *prefixWriter) flush() {
	if len(w.line) > 0 {
		w.emit(append(w.line, '\n'))
	}
}

type lockedWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (l *lockedWriter) writeLine(prefix, line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(append(l.buf[:0], prefix...), line...)
	_, _ = l.w.Write(l.buf)
}

// replay writes captured output through a fresh prefixer (cache hits).
func (l *lockedWriter) replay(prefix, output string) {
	if l == nil || output == "" {
		return
	}
	// Prefixed as a run's lines are, and written at once: one write
	// instead of one a line, and a replay's lines stay together.
	var b bytes.Buffer
	w := &prefixWriter{out: &lockedWriter{w: &b}, prefix: []byte(prefix)}
	w.write([]byte(output))
	w.flush()
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.w.Write(b.Bytes())
}
