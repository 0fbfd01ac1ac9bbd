package manifest

import "bytes"

// StripJSONC turns JSON with comments and trailing commas (tsconfig.json's
// dialect) into JSON: comments become spaces, a comma before a closing
// bracket or brace is dropped. Strings are kept as they are; the output is
// never longer than the input.
func StripJSONC(src []byte) []byte {
	out := make([]byte, 0, len(src))
	pendingComma := -1 // index in out of a comma that may be trailing
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			pendingComma = -1
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) {
				j = len(src) - 1
			}
			out = append(out, src[i:j+1]...)
			i = j
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			if i < len(src) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return out // an unclosed comment: the rest is comment
			}
			out = append(out, ' ')
			i += end + 3
		case c == ',':
			pendingComma = len(out)
			out = append(out, c)
		case c == '}' || c == ']':
			if pendingComma >= 0 {
				out = append(out[:pendingComma], out[pendingComma+1:]...)
			}
			pendingComma = -1
			out = append(out, c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			out = append(out, c)
		default:
			pendingComma = -1
			out = append(out, c)
		}
	}
	return out
}
