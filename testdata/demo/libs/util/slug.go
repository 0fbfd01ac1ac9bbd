// Package util holds the small helpers every service of the demo shop shares.
package util

import (
	"strings"
	"unicode"
)

// Slugify lowercases s and joins its words with "-", dropping punctuation,
// so "Blue Mug (large)" becomes "blue-mug-large".
func Slugify(s string) string {
	var words []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		words = append(words, strings.ToLower(w))
	}
	return strings.Join(words, "-")
}
