package suggest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fuzzy scores name against the pattern an agent or a person typed, as a
// ranked subsequence match (gopls' workspace symbol search, fzf): every
// character of pattern must appear in name, in order, ignoring case; 0
// means no match. Higher is better: the whole name, then its last part
// (Start finds Runner.Start), then a prefix, a run of characters, a match
// at the start of a word (after '.', '_', '/', or a lower-to-upper case
// change), and case that matches; a gap costs. The first character must
// start a word of the name, and at least half of them must be in a run or
// start a word: letters scattered over a long name are no match. Names and patterns are
// bounded (maxFuzzy bytes) so one score is cheap.
func Fuzzy(pattern, name string) int {
	if pattern == "" || len(pattern) > maxFuzzy || len(name) > 4*maxFuzzy || !utf8.ValidString(pattern) {
		return 0
	}
	last := name[strings.LastIndexAny(name, "./")+1:]
	switch {
	case name == pattern:
		return 1000
	case last == pattern:
		return 900
	case strings.EqualFold(name, pattern):
		return 850
	case strings.EqualFold(last, pattern):
		return 800
	}
	s := subsequence(pattern, name, true)
	if s == 0 {
		s = subsequence(pattern, name, false) // the earliest places always match a subsequence
	}
	if s == 0 {
		return 0
	}
	if hasPrefixFold(last, pattern) {
		s += 200
	} else if hasPrefixFold(name, pattern) {
		s += 150
	}
	return min(s, 700)
}

const maxFuzzy = 128

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// subsequence scores a greedy match of pattern in name (each pattern
// rune at its earliest place, or, with words, at a word start close by);
// 0 when it finds none.
func subsequence(pattern, name string, words bool) int {
	nr := []rune(name)
	score, i, prev := 1, 0, -2
	good, n := 0, 0 // pattern runes at a run or a word start, of all
	for _, p := range pattern {
		n++
		lp := unicode.ToLower(p)
		at := -1
		// The first place it matches, or a word start a little further on.
		for j := i; j < len(nr); j++ {
			if unicode.ToLower(nr[j]) != lp || prev < 0 && !wordStart(nr, j) {
				continue // the first rune starts a word
			}
			if at < 0 {
				at = j
				if !words || j == prev+1 || wordStart(nr, j) {
					break
				}
				continue
			}
			if wordStart(nr, j) && j-at <= 8 {
				at = j
				break
			}
		}
		if at < 0 {
			return 0
		}
		switch {
		case prev < 0 && !wordStart(nr, at):
			return 0 // a name is found by the start of one of its words
		case at == prev+1:
			score += 15 // a run
			good++
		case wordStart(nr, at):
			score += 12
			good++
		default:
			score += 2 - min(at-prev, 10)/2 // a gap
		}
		if nr[at] == p {
			score++
		}
		prev, i = at, at+1
	}
	if good < (n+1)/2 {
		return 0 // letters scattered over the name: no match
	}
	return max(score, 1) + max(0, 40-len(nr)) // shorter names first among equals
}

// wordStart reports whether rune j of s begins a word.
func wordStart(s []rune, j int) bool {
	if j == 0 {
		return true
	}
	p, c := s[j-1], s[j]
	return p == '.' || p == '_' || p == '/' || p == '-' || unicode.IsLower(p) && unicode.IsUpper(c) || unicode.IsDigit(c) && !unicode.IsDigit(p)
}
