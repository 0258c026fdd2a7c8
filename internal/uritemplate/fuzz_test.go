package uritemplate

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzMatch checks that Parse and MatchAppend never panic, that a match is
// well formed, that it agrees with the backtracking reference on short URIs,
// and that Expand and Match round-trip.
func FuzzMatch(f *testing.F) {
	for _, tc := range matchCases {
		f.Add(tc.template, tc.uri, "v1\x00v2")
	}
	f.Add("x://{a}.{b}", "x://1.2.3", "1.2\x003")
	f.Add("x://{a}%2F{b}", "", "a/b\x00c")
	f.Add("{a}/{b}?{c}#{d}", "1/2?3#4", "/\x00?\x00#\x00%")
	f.Fuzz(func(t *testing.T, template, uri, values string) {
		tpl, err := Parse(template)
		if err != nil {
			if tpl != nil {
				t.Fatal("non-nil template with an error")
			}
			return
		}
		if tpl.String() != template || tpl.NumVars() > MaxVars || len(template) > MaxTemplateBytes {
			t.Fatalf("bad template %q", template)
		}
		checkMatch(t, tpl, uri)
		if len(uri) <= 64 {
			checkAgainstRef(t, tpl, uri)
		}
		checkRoundTrip(t, tpl, strings.Split(values, "\x00"))
	})
}

func checkMatch(t *testing.T, tpl *Template, uri string) {
	t.Helper()
	vars, ok := tpl.MatchAppend(nil, uri)
	m, mok := tpl.Match(uri)
	if ok != mok {
		t.Fatalf("MatchAppend %v, Match %v", ok, mok)
	}
	if !ok {
		if len(vars) != 0 {
			t.Fatalf("no match but vars %v", vars)
		}
		return
	}
	names := tpl.Variables()
	if len(vars) != len(names) || len(m) != len(names) {
		t.Fatalf("got %d vars, want %d", len(vars), len(names))
	}
	for i, v := range vars {
		if v.Name != names[i] || m[v.Name] != v.Value || v.Value == "" || !utf8.ValidString(v.Value) {
			t.Fatalf("bad var %d: %+v", i, v)
		}
	}
	// A canonical URI (the output of Expand) re-expands to itself.
	u2 := tpl.Expand(m)
	if m2, ok := tpl.Match(u2); ok {
		if u3 := tpl.Expand(m2); u3 != u2 {
			t.Fatalf("Expand(Match(%q)) = %q", u2, u3)
		}
	}
}

// checkRoundTrip expands the template with the given values (cycled over
// the variables) and requires Match to recover them whenever the package
// documentation promises it.
func checkRoundTrip(t *testing.T, tpl *Template, pieces []string) {
	t.Helper()
	values := make(map[string]string, tpl.NumVars())
	promised := true
	for k, v := range tpl.vars {
		val := pieces[k%len(pieces)]
		values[v.name] = val
		if val == "" || !utf8.ValidString(val) {
			promised = false
			continue
		}
		if k < len(tpl.vars)-1 {
			enc := string(appendEscaped(nil, val))
			// The literal must first occur right after the encoded value.
			if strings.Index((enc + v.lit)[1:], v.lit) != len(enc)-1 {
				promised = false
			}
		}
	}
	uri := tpl.Expand(values)
	m, ok := tpl.Match(uri)
	if !promised {
		return
	}
	if !ok {
		t.Fatalf("Match(Expand(%q)) = Match(%q) failed", values, uri)
	}
	for name, want := range values {
		if m[name] != want {
			t.Fatalf("Match(Expand(%q)) = %q", values, m)
		}
	}
}
