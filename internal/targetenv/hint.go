package targetenv

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Hint names a variable a failed target did not get and may have needed,
// with where it was named.
type Hint struct {
	Name  string `json:"name"`
	Where string `json:"where"` // "its command", "its output", "build.js, which its command runs", ...
}

// Source is a text a failed target's hint looks through: its command, the
// package.json script it runs, a file its command names, its output.
type Source struct {
	Where, Text string
	// Output marks the target's output: it is also read for errors that
	// name no variable (a certificate the machine's CA bundle would have
	// verified, a host only a proxy reaches).
	Output bool
}

// maxHints bounds the hints of one failure: more is noise.
const maxHints = 6

// The variables a failure names without writing them: a TLS error that a
// machine's own certificate bundle would have prevented, a network error
// that its proxy would have, each with the variables that carry them.
var families = []struct {
	what  string
	error func() *regexp.Regexp
	names []string
}{
	{
		what: "a certificate error",
		error: sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`(?i)unable to (get|verify) (the first|local issuer) certificate|self[- ]signed certificate|certificate verify failed|x509: certificate|unknown authority|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_UNTRUSTED`)
		}),
		names: certificates,
	},
	{
		what: "a network error",
		error: sync.OnceValue(func() *regexp.Regexp {
			return regexp.MustCompile(`(?i)ENOTFOUND|ETIMEDOUT|ECONNREFUSED|ECONNRESET|EAI_AGAIN|getaddrinfo|could not resolve host|temporary failure in name resolution|network is unreachable|dial tcp|i/o timeout|connection refused`)
		}),
		names: proxies,
	},
}

// Hints names the withheld variables (Env.Withheld) that the sources name
// as a whole word, then those of a family whose error the output shows;
// each once, where it was first seen, at most maxHints.
func Hints(withheld []string, sources []Source) []Hint {
	if len(withheld) == 0 {
		return nil
	}
	var out []Hint
	seen := map[string]bool{}
	add := func(name, where string) {
		if !seen[name] && len(out) < maxHints {
			seen[name] = true
			out = append(out, Hint{Name: name, Where: where})
		}
	}
	for _, s := range sources {
		for _, name := range withheld {
			if namesWord(s.Text, name) {
				add(name, s.Where)
			}
		}
	}
	for _, s := range sources {
		if !s.Output {
			continue
		}
		for _, f := range families {
			if !f.error().MatchString(s.Text) {
				continue
			}
			for _, name := range f.names {
				for _, w := range withheld {
					if w == name {
						add(name, s.Where+": "+f.what)
					}
				}
			}
		}
	}
	return out
}

// namesWord reports whether text holds name with no letter, digit or _
// on either side.
func namesWord(text, name string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !wordByte(text[j-1])) && (end == len(text) || !wordByte(text[end])) {
			return true
		}
		i = j + 1
	}
}

func wordByte(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_'
}

// Advice is what a failed target's summary says of its hints: which
// variables were withheld, where each was named, and the line to add to
// the target in targets.yaml. indent starts every line after the first.
func Advice(target string, hints []Hint, indent string) string {
	if len(hints) == 0 {
		return ""
	}
	names := make([]string, len(hints))
	parts := make([]string, len(hints))
	for i, h := range hints {
		names[i] = h.Name
		parts[i] = fmt.Sprintf("%s (%s)", h.Name, h.Where)
	}
	verb, it := "is", "it"
	if len(hints) > 1 {
		verb, it = "are", "them"
	}
	return fmt.Sprintf("%s %s set here but withheld from %s (strict environment). If it needs %s, add to %s in targets.yaml:\n"+
		"%s  pass_env: [%s]\n"+
		"%s(passed, not in its key: credentials, proxies, certificates; env: [...] puts a value in the key; --env-mode=loose passes everything)",
		strings.Join(parts, ", "), verb, target, it, target, indent, strings.Join(names, ", "), indent)
}
