package parse

import (
	"maps"
	"runtime"
	"strings"
	"sync"
)

// Go and Python files take a fast path (gofast.go, pyfast.go) unless it
// declines them; these counters say how many did, and why the others fell
// back to go/parser or tree-sitter, for benchmarks and profiles.

// FastPath is the reason ("" for none) counted for the files of a
// language that took the fast path.
const FastPath = ""

// SyntaxErrorReason is the reason counted for a file that fell back and
// that the full parser found a syntax error in.
const SyntaxErrorReason = "syntax error"

var fastStats struct {
	mu sync.Mutex
	m  map[string]map[string]int64 // language → reason → files
}

func countFastPath(lang, reason string) {
	fastStats.mu.Lock()
	defer fastStats.mu.Unlock()
	if fastStats.m == nil {
		fastStats.m = map[string]map[string]int64{}
	}
	byReason := fastStats.m[lang]
	if byReason == nil {
		byReason = map[string]int64{}
		fastStats.m[lang] = byReason
	}
	byReason[reason]++
}

// FastPathStats returns, by language, how many files the fast path parsed
// (under the reason FastPath) and how many fell back, by reason, since the
// process started or ResetFastPathStats.
func FastPathStats() map[string]map[string]int64 {
	fastStats.mu.Lock()
	defer fastStats.mu.Unlock()
	out := make(map[string]map[string]int64, len(fastStats.m))
	for lang, byReason := range fastStats.m {
		out[lang] = maps.Clone(byReason)
	}
	return out
}

// ResetFastPathStats zeroes the counters of FastPathStats.
func ResetFastPathStats() {
	fastStats.mu.Lock()
	defer fastStats.mu.Unlock()
	fastStats.m = nil
}

// throughFastPath parses src with the fast path of lang, or, when it
// declines, with the full parser, and counts which it was: the one home
// of the fallback for the fast paths that say why they decline (Python,
// JavaScript, TypeScript declaration files; Go's is in golang.go).
func throughFastPath[D ~string](lang, path string, src []byte, fast func(string, []byte) (FileRecord, D), full func(string, []byte) FileRecord) FileRecord {
	rec, why := fast(path, src)
	if why == "" {
		countFastPath(lang, FastPath)
		return rec
	}
	rec = full(path, src)
	reason := string(why)
	if rec.Diag != "" {
		reason = SyntaxErrorReason
	}
	countFastPath(lang, reason)
	return rec
}

// goGiveUpSite names the function of the fast Go path that gave up, from
// the stack of the panic being recovered: the first caller of giveUp
// other than the helpers that only check a token.
func goGiveUpSite() string {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	seenGiveUp := false
	for {
		f, more := frames.Next()
		name := f.Function[strings.LastIndexByte(f.Function, '/')+1:]
		name = strings.TrimPrefix(name, "parse.")
		switch {
		case name == "giveUp":
			seenGiveUp = true
		case !seenGiveUp:
		case strings.HasSuffix(name, ".expect"), strings.HasSuffix(name, ".expectSemi"),
			strings.HasSuffix(name, ".ident"), strings.HasSuffix(name, ".enter"):
		default:
			return name
		}
		if !more {
			return "unknown"
		}
	}
}
