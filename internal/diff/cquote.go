package diff

// Paths in a patch are quoted the way git quotes them (quote.c,
// quote_c_style): a name that holds a byte git must escape is written
// between double quotes, with \a \b \t \n \v \f \r \" \\ for those bytes,
// a three-digit octal escape for any other control byte and DEL, and, only
// when core.quotePath is on (git's default; core's git commands run with
// it off), an octal escape for each byte of 0x80 and above. Other bytes,
// the space among them, are written as they are.

// cqEscape is the letter git writes after a backslash for b, 0 when b is
// written as an octal escape, and -1 when b is written as it is.
func cqEscape(b byte, quotePath bool) int {
	switch {
	case b >= 0x80:
		if quotePath {
			return 0
		}
		return -1
	case b == '"' || b == '\\':
		return int(b)
	case b >= 0x07 && b <= 0x0d:
		return int("abtnvfr"[b-0x07])
	case b < 0x20 || b == 0x7f:
		return 0
	}
	return -1
}

// needsCQuote reports whether git quotes s.
func needsCQuote(s string, quotePath bool) bool {
	for i := 0; i < len(s); i++ {
		if cqEscape(s[i], quotePath) >= 0 {
			return true
		}
	}
	return false
}

// appendCQuoted appends prefix+name as git's quote_two writes it: as is
// when neither needs quoting, else the two between one pair of double
// quotes, escaped ("b/a\"b").
func appendCQuoted(dst []byte, prefix, name string, quotePath bool) []byte {
	if !needsCQuote(prefix, quotePath) && !needsCQuote(name, quotePath) {
		dst = append(dst, prefix...)
		return append(dst, name...)
	}
	dst = append(dst, '"')
	for _, s := range [2]string{prefix, name} {
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch e := cqEscape(c, quotePath); {
			case e < 0:
				dst = append(dst, c)
			case e > 0:
				dst = append(dst, '\\', byte(e))
			default:
				dst = append(dst, '\\', '0'+c>>6, '0'+(c>>3)&7, '0'+c&7)
			}
		}
	}
	return append(dst, '"')
}
