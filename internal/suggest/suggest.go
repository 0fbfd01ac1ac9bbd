// Package suggest finds the option a mistyped word was probably meant to be,
// for error messages that teach ("did you mean ...?").
package suggest

// Closest returns the option nearest to s by edit distance, if it is close
// enough to be a likely typo (about a third of its length, at most 3).
func Closest(s string, options []string) (string, bool) {
	best, bestD := "", 1<<30
	for _, o := range options {
		if d := Distance(s, o); d < bestD {
			best, bestD = o, d
		}
	}
	limit := min(3, max(1, (len(s)+2)/3))
	if best == "" || bestD > limit || bestD == 0 {
		return "", false
	}
	return best, true
}

// DidYouMean returns ` (did you mean "x"?)` for the closest option, or "".
func DidYouMean(s string, options []string) string {
	if o, ok := Closest(s, options); ok {
		return ` (did you mean "` + o + `"?)`
	}
	return ""
}

// Distance is the optimal-string-alignment distance between a and b, in
// bytes: insertions, deletions, substitutions and swaps of neighbours each
// cost one, so the common typo "grnat" is one step from "grant".
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 { // names and keys are short; bound the cost
		if a == b {
			return 0
		}
		return 64
	}
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
