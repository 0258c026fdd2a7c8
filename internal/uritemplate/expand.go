package uritemplate

// Expand performs RFC 6570 level-1 expansion: it substitutes each variable's
// value, percent-encoding every byte that is not unreserved (ALPHA, DIGIT,
// '-', '.', '_', '~') with upper-case hex. A variable missing from values
// expands to the empty string, as RFC 6570 prescribes; such a URI never
// matches, because Match binds only non-empty values.
func (t *Template) Expand(values map[string]string) string {
	n := len(t.prefix)
	for _, v := range t.vars {
		n += 3*len(values[v.name]) + len(v.lit)
	}
	b := make([]byte, 0, n)
	b = append(b, t.prefix...)
	for _, v := range t.vars {
		b = appendEscaped(b, values[v.name])
		b = append(b, v.lit...)
	}
	return string(b)
}

func appendEscaped(b []byte, s string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUnreserved(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hex[c>>4], hex[c&15])
		}
	}
	return b
}

func isUnreserved(c byte) bool {
	return isVarChar(c) || c == '-' || c == '.' || c == '~'
}
