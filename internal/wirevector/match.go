package wirevector

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

var placeholderRE = regexp.MustCompile(`\{\{([a-z][a-z0-9_]*)(:tamper)?\}\}`)

// substitute fills the placeholders of a request with captured values.
func substitute(t testing.TB, where, req string, vars map[string]string) []byte {
	t.Helper()
	return []byte(placeholderRE.ReplaceAllStringFunc(req, func(p string) string {
		m := placeholderRE.FindStringSubmatch(p)
		val, ok := vars[m[1]]
		if !ok {
			t.Fatalf("%s: placeholder {{%s}} used before a reply captured it", where, m[1])
		}
		if m[2] != "" {
			return tamper(val)
		}
		return val
	}))
}

// tamper changes the middle character of a base64url token to another one of the alphabet.
func tamper(tok string) string {
	b := []byte(tok)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// matchExpected reports whether actual matches the expected line, capturing new placeholders
// into vars.
func matchExpected(expected string, actual []byte, vars map[string]string) bool {
	var re strings.Builder
	re.WriteString("^")
	var names []string
	last := 0
	for _, loc := range placeholderRE.FindAllStringSubmatchIndex(expected, -1) {
		re.WriteString(regexp.QuoteMeta(expected[last:loc[0]]))
		name := expected[loc[2]:loc[3]]
		if val, ok := vars[name]; ok {
			re.WriteString(regexp.QuoteMeta(val))
		} else {
			re.WriteString(`([A-Za-z0-9_-]+)`)
			names = append(names, name)
		}
		last = loc[1]
	}
	re.WriteString(regexp.QuoteMeta(expected[last:]))
	re.WriteString("$")
	m := regexp.MustCompile(re.String()).FindSubmatch(actual)
	if m == nil {
		return false
	}
	captured := map[string]string{}
	for i, n := range names {
		if prev, ok := captured[n]; ok && prev != string(m[i+1]) {
			return false // the same new name twice in one line must capture one value
		}
		captured[n] = string(m[i+1])
	}
	for n, val := range captured {
		vars[n] = val
	}
	return true
}

// firstDiff points at the first byte where got leaves want (placeholders make it approximate).
func firstDiff(want string, got []byte) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return fmt.Sprintf("first difference at byte %d: want %q, got %q", i, clip(want[i:]), clip(string(got[i:])))
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
