package forge

import (
	"regexp"
	"strings"
)

// tokenShape matches GitHub's tokens by their documented prefixes
// (classic ghp_, OAuth gho_, user-to-server ghu_, server-to-server ghs_,
// refresh ghr_, fine-grained github_pat_), whole or cut short: a message
// quotes a forge's error body cut to its first 60 characters
// (internal/quote), so an echoed token may arrive without its end, and a
// search for the whole token would miss it.
var tokenShape = regexp.MustCompile(`(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]*`)

// minTokenHead is the shortest head of the token that is scrubbed where
// it stands alone: long enough that no other text matches it by chance.
const minTokenHead = 8

// scrubToken removes from s the token, any head of it at least
// minTokenHead long (a cut echo of a token of no known shape), and
// anything shaped like a GitHub token.
func scrubToken(s, token string) string {
	const redacted = "<redacted>"
	if token != "" {
		s = strings.ReplaceAll(s, token, redacted)
		for n := len(token) - 1; n >= minTokenHead; n-- {
			if strings.Contains(s, token[:n]) {
				s = strings.ReplaceAll(s, token[:n], redacted)
				break
			}
		}
	}
	return tokenShape.ReplaceAllString(s, redacted)
}
