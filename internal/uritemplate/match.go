package uritemplate

import (
	"strings"
	"unicode/utf8"
)

// Match reports whether uri matches the template and returns the decoded
// variables by name. It allocates the map; use [Template.MatchAppend] on hot
// paths.
func (t *Template) Match(uri string) (map[string]string, bool) {
	var buf [8]Var // enough for most templates without allocating
	vars, ok := t.MatchAppend(buf[:0], uri)
	if !ok {
		return nil, false
	}
	m := make(map[string]string, len(vars))
	for _, v := range vars {
		m[v.Name] = v.Value
	}
	return m, true
}

// MatchAppend reports whether uri matches the template. On a match it appends
// one [Var] per variable, in template order, to dst and returns the extended
// slice; otherwise it returns dst unchanged (same length). A Value that needed
// no percent-decoding is a substring of uri and allocates nothing; a decoded
// Value is a new string.
//
// The running time is linear in len(uri); see the package documentation for
// the matching rules.
//
// Why the shortest value for each middle variable never loses a match: take
// any valid split and the greedy one, and suppose greedy variable k starts no
// later than the valid one. The bytes between the two starts hold no
// delimiter (they lie in a valid value, or in a literal whose earlier
// occurrence lies inside a valid value, and a literal overlapping its own
// later occurrence is made of its first, delimiter-free bytes). So the valid
// split's occurrence of the next literal is a candidate for the greedy scan,
// the greedy end is no later, and by induction the last variable's value is
// non-empty and delimiter-free too.
func (t *Template) MatchAppend(dst []Var, uri string) ([]Var, bool) {
	if len(t.vars) == 0 {
		return dst, uri == t.prefix
	}
	last := &t.vars[len(t.vars)-1]
	if !strings.HasPrefix(uri, t.prefix) || !strings.HasSuffix(uri[len(t.prefix):], last.lit) {
		return dst, false
	}
	body := uri[:len(uri)-len(last.lit)]
	n0 := len(dst)
	i := len(t.prefix)
	for k := range t.vars[:len(t.vars)-1] {
		v := &t.vars[k]
		j := v.scan(body, i)
		if j < 0 {
			return dst[:n0], false
		}
		val, ok := decode(body[i:j])
		if !ok {
			return dst[:n0], false
		}
		dst = append(dst, Var{Name: v.name, Value: val})
		i = j + len(v.lit)
	}
	raw := body[i:]
	if raw == "" || indexDelim(raw) >= 0 {
		return dst[:n0], false
	}
	val, ok := decode(raw)
	if !ok {
		return dst[:n0], false
	}
	return append(dst, Var{Name: last.name, Value: val}), true
}

// isDelim reports whether c ends a variable value: level-1 expansion
// percent-encodes these, and they separate path segments, query and fragment.
func isDelim(c byte) bool { return c == '/' || c == '?' || c == '#' }

func indexDelim(s string) int {
	for i := 0; i < len(s); i++ {
		if isDelim(s[i]) {
			return i
		}
	}
	return -1
}

// scan finds the end of the value of v that starts at body[i]: the smallest
// j > i such that body[j:] begins with v.lit and body[i:j] contains no
// delimiter. It returns -1 if there is none.
//
// It is a Knuth-Morris-Pratt search: each byte of body is consumed once, and
// the state only falls back through the failure table, so the cost is
// O(j - i + len(v.lit)). On failure it stops as soon as no occurrence can
// start at or before the first delimiter, at most len(v.lit) bytes past it.
// The caller resumes at j+len(v.lit), so over a whole match every byte of
// the URI is consumed once, plus at most len(lit) bytes per failed scan.
func (v *variable) scan(body string, i int) int {
	lit, next := v.lit, v.next
	if i >= len(body) || isDelim(body[i]) {
		return -1
	}
	first := lit[0]
	limit := -1 // offset of the first delimiter after i, once seen; starts must not exceed it
	k := 0      // bytes of lit matched so far, ending at p
	for p := i + 1; p < len(body); p++ {
		c := body[p]
		if k == 0 && c != first {
			// Fast path outside a partial match. A delimiter here means
			// the earliest possible start, p+1, is past it.
			if isDelim(c) {
				return -1
			}
			continue
		}
		if limit < 0 && isDelim(c) {
			limit = p
		}
		for k > 0 && lit[k] != c {
			k = int(next[k-1])
		}
		if lit[k] == c {
			k++
		}
		if k == len(lit) {
			if j := p + 1 - k; limit < 0 || j <= limit {
				return j
			}
			return -1
		}
		// Every later occurrence starts at or after p+1-k.
		if limit >= 0 && p+1-k > limit {
			return -1
		}
	}
	return -1
}

// decode percent-decodes s. It reports false for an invalid escape or a
// result that is not valid UTF-8. If s has no escapes, it returns s itself.
func decode(s string) (string, bool) {
	pct := strings.IndexByte(s, '%')
	if pct < 0 {
		return s, utf8.ValidString(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:pct])
	for i := pct; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
		i += 2
	}
	out := b.String()
	return out, utf8.ValidString(out)
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}
