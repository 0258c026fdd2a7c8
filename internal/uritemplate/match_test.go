package uritemplate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// matchCases is shared by the table tests and the fuzz seed corpus.
var matchCases = []struct {
	name     string
	template string
	uri      string
	want     []Var // nil: no match
}{
	{"static equal", "test://static", "test://static", []Var{}},
	{"static differs", "test://static", "test://static/", nil},
	{"mcp example", "test://template/{id}/data", "test://template/42/data", []Var{{"id", "42"}}},
	{"mcp example wrong tail", "test://template/{id}/data", "test://template/42/info", nil},
	{"mcp example two segments", "test://template/{id}/data", "test://template/4/2/data", nil},
	{"mcp example repeated tail", "test://template/{id}/data", "test://template/42/data/data", nil},
	{"mcp example empty value", "test://template/{id}/data", "test://template//data", nil},
	{"prefix mismatch", "test://template/{id}/data", "test://templat/42/data", nil},
	{"file single segment", "file:///{path}", "file:///notes.txt", []Var{{"path", "notes.txt"}}},
	{"file no slash in value", "file:///{path}", "file:///a/b", nil},
	{"file encoded slash", "file:///{path}", "file:///a%2Fb", []Var{{"path", "a/b"}}},
	{"file empty", "file:///{path}", "file:///", nil},
	{"query in value", "file:///{path}", "file:///a?x=1", nil},
	{"fragment in value", "file:///{path}", "file:///a#x", nil},
	{"two vars", "db://{schema}/{table}.json", "db://public/users.json", []Var{{"schema", "public"}, {"table", "users"}}},
	{"last var takes dots", "db://{schema}/{table}.json", "db://public/a.b.json", []Var{{"schema", "public"}, {"table", "a.b"}}},
	{"shortest middle", "x://{a}.{b}", "x://1.2.3", []Var{{"a", "1"}, {"b", "2.3"}}},
	{"middle literal twice", "x://{a}.b{c}", "x://1.c.bd", []Var{{"a", "1.c"}, {"c", "d"}}},
	{"split before decoding", "x://{a}%2{b}", "x://1%2F%2x", nil},
	{"middle literal found later", "x://{a}-v2/{b}", "x://foo-bar-v2/z", []Var{{"a", "foo-bar"}, {"b", "z"}}},
	{"middle literal after delimiter", "x://{a}-v2/{b}", "x://foo/-v2/z", nil},
	{"middle literal starting with slash", "x://{a}/b/{c}", "x://1/b/2", []Var{{"a", "1"}, {"c", "2"}}},
	{"middle literal kmp fallback", "x://{a}aab{b}", "x://xaaaab1", []Var{{"a", "xaa"}, {"b", "1"}}},
	{"literal query", "search://q?term={term}&n={n}", "search://q?term=go&n=5", []Var{{"term", "go"}, {"n", "5"}}},
	{"query value with ampersand", "search://q?term={term}", "search://q?term=a&b", []Var{{"term", "a&b"}}},
	{"leading var", "{scheme}://x", "https://x", []Var{{"scheme", "https"}}},
	{"prefix and suffix overlap", "ab{x}ba", "aba", nil},
	{"decode", "x://{q}", "x://hello%20world%21", []Var{{"q", "hello world!"}}},
	{"decode lowercase hex", "x://{q}", "x://%c3%a9", []Var{{"q", "é"}}},
	{"plus is not space", "x://{q}", "x://a+b", []Var{{"q", "a+b"}}},
	{"raw utf8", "x://{q}", "x://é", []Var{{"q", "é"}}},
	{"bad escape short", "x://{q}", "x://a%2", nil},
	{"bad escape end", "x://{q}", "x://a%", nil},
	{"bad escape hex", "x://{q}", "x://%zz", nil},
	{"decoded invalid utf8", "x://{q}", "x://%ff", nil},
	{"raw invalid utf8", "x://{q}", "x://\xff", nil},
	{"bad escape in middle var", "x://{a}/{b}", "x://%g0/b", nil},
	{"scheme is case sensitive", "test://{id}", "TEST://1", nil},
}

func TestMatch(t *testing.T) {
	for _, tc := range matchCases {
		t.Run(tc.name, func(t *testing.T) {
			tpl := MustParse(tc.template)
			sentinel := Var{"keep", "me"}
			got, ok := tpl.MatchAppend([]Var{sentinel}, tc.uri)
			m, mok := tpl.Match(tc.uri)
			assert.Equal(t, ok, mok, "Match and MatchAppend disagree")
			if tc.want == nil {
				assert.False(t, ok)
				assert.Equal(t, []Var{sentinel}, got, "dst must be unchanged on failure")
				assert.Nil(t, m)
				return
			}
			require.True(t, ok)
			assert.Equal(t, append([]Var{sentinel}, tc.want...), got)
			want := make(map[string]string, len(tc.want))
			for _, v := range tc.want {
				want[v.Name] = v.Value
			}
			assert.Equal(t, want, m)
		})
	}
}

// TestMatchNoCopy checks that undecoded values are substrings of the URI.
func TestMatchNoCopy(t *testing.T) {
	uri := "test://template/42/data"
	vars, ok := MustParse("test://template/{id}/data").MatchAppend(nil, uri)
	require.True(t, ok)
	require.Len(t, vars, 1)
	assert.Equal(t, uri[16:18], vars[0].Value)
	assert.Same(t, unsafeData(uri[16:]), unsafeData(vars[0].Value))
}

func TestMatchFailureKeepsPartialValuesOut(t *testing.T) {
	tpl := MustParse("x://{a}/{b}/{c}")
	dst := make([]Var, 0, 8)
	got, ok := tpl.MatchAppend(dst, "x://1/2/")
	assert.False(t, ok)
	assert.Empty(t, got)
}

func TestScan(t *testing.T) {
	tests := []struct {
		lit  string
		body string
		i    int
		want int
	}{
		{"/data", "42/data", 0, 2},
		{"/data", "/data", 0, -1}, // value would be empty
		{"-v2", "foo-bar-v2", 0, 7},
		{"-v2", "foo/-v2", 0, -1}, // starts after the first delimiter
		{"/x", "ab/x", 0, 2},      // literal begins at the delimiter
		{"aab", "xaaaab", 0, 3},
		{"aab", "xaaaa", 0, -1},
		{"b", "ab", 1, -1}, // starting at i, the value must be non-empty
		{"b", "a", 1, -1},
		{"a?", "x?a?", 0, -1}, // delimiter inside the value
		{"?a", "x?a", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.lit+"/"+tc.body, func(t *testing.T) {
			v := &variable{name: "v", lit: tc.lit, next: failureTable(tc.lit)}
			assert.Equal(t, tc.want, v.scan(tc.body, tc.i))
		})
	}
}

// TestScanMatchesNaive compares the KMP scan with a brute-force definition on
// every short string over a small alphabet.
func TestScanMatchesNaive(t *testing.T) {
	lits := []string{"a", "ab", "aab", "aba", "/a", "a/", "?", "abab", "aaa"}
	alphabet := "ab/"
	var bodies []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		bodies = append(bodies, prefix)
		if n == 0 {
			return
		}
		for i := range len(alphabet) {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 7)
	for _, lit := range lits {
		v := &variable{lit: lit, next: failureTable(lit)}
		for _, body := range bodies {
			for i := 0; i <= len(body); i++ {
				require.Equal(t, naiveScan(lit, body, i), v.scan(body, i), "lit %q body %q i %d", lit, body, i)
			}
		}
	}
}

func naiveScan(lit, body string, i int) int {
	for j := i + 1; j <= len(body); j++ {
		if strings.ContainsAny(body[i:j], "/?#") {
			return -1
		}
		if strings.HasPrefix(body[j:], lit) {
			return j
		}
	}
	return -1
}

// refSplit is the backtracking definition of a match, ignoring decoding: it
// returns the raw values of the split whose value ends are smallest in
// template order, or nil. It memoizes failures, so it is polynomial.
func refSplit(t *Template, uri string) []string {
	if len(t.vars) == 0 {
		if uri == t.prefix {
			return []string{}
		}
		return nil
	}
	if !strings.HasPrefix(uri, t.prefix) {
		return nil
	}
	failed := make(map[[2]int]bool)
	var rec func(k, i int) []string
	rec = func(k, i int) []string {
		if failed[[2]int{k, i}] {
			return nil
		}
		v := t.vars[k]
		for j := i + 1; j <= len(uri); j++ {
			if strings.ContainsAny(uri[i:j], "/?#") {
				break
			}
			if !strings.HasPrefix(uri[j:], v.lit) {
				continue
			}
			end := j + len(v.lit)
			if k == len(t.vars)-1 {
				if end == len(uri) {
					return []string{uri[i:j]}
				}
				continue
			}
			if rest := rec(k+1, end); rest != nil {
				return append([]string{uri[i:j]}, rest...)
			}
		}
		failed[[2]int{k, i}] = true
		return nil
	}
	return rec(0, len(t.prefix))
}

// checkAgainstRef fails if MatchAppend disagrees with the backtracking
// reference: it must find the same split, and match iff the split decodes.
func checkAgainstRef(tb testing.TB, tpl *Template, uri string) {
	tb.Helper()
	got, ok := tpl.MatchAppend(nil, uri)
	raw := refSplit(tpl, uri)
	if raw == nil {
		if ok {
			tb.Fatalf("template %q uri %q: matched %v, reference finds no split", tpl, uri, got)
		}
		return
	}
	want := make([]Var, len(raw))
	decodes := true
	for k, r := range raw {
		v, dok := decode(r)
		decodes = decodes && dok
		want[k] = Var{Name: tpl.vars[k].name, Value: v}
	}
	if ok != decodes {
		tb.Fatalf("template %q uri %q: ok=%v, reference split %q decodes=%v", tpl, uri, ok, raw, decodes)
	}
	if ok && !equalVars(got, want) {
		tb.Fatalf("template %q uri %q: got %v, reference %v", tpl, uri, got, want)
	}
}

func equalVars(a, b []Var) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMatchNeverMissesASplit checks exhaustively, on short URIs, that taking
// the shortest value for each middle variable without backtracking finds
// exactly the split a backtracking matcher finds first.
func TestMatchNeverMissesASplit(t *testing.T) {
	templates := []string{
		"{a}.{b}.{c}", "{a}-{b}/{c}", "{a}ab{b}ba", "{a}a/{b}", "{a}/a{b}b",
		"{a}ab{b}b", "{a}.{b}x", "{a}a/a{b}", "x{a}aa{b}a", "{a}?{b}", "{a}a{b}a{c}",
		"{a}/", "/{a}", "{a}", "ab", "{a}aba{b}", "{a}a.a{b}.", "{a}%{b}",
	}
	const alphabet = "a./?%"
	var uris []string
	var gen func(prefix string, n int)
	gen = func(prefix string, n int) {
		uris = append(uris, prefix)
		if n == 0 {
			return
		}
		for i := range len(alphabet) {
			gen(prefix+alphabet[i:i+1], n-1)
		}
	}
	gen("", 6)
	for _, ts := range templates {
		tpl := MustParse(ts)
		for _, uri := range uris {
			checkAgainstRef(t, tpl, uri)
		}
	}
}

func TestExpand(t *testing.T) {
	tests := []struct {
		name     string
		template string
		values   map[string]string
		want     string
	}{
		{"simple", "test://template/{id}/data", map[string]string{"id": "42"}, "test://template/42/data"},
		{"encodes reserved", "file:///{path}", map[string]string{"path": "a/b c?d#e%"}, "file:///a%2Fb%20c%3Fd%23e%25"},
		{"keeps unreserved", "x://{v}", map[string]string{"v": "aZ09-._~"}, "x://aZ09-._~"},
		{"utf8", "x://{v}", map[string]string{"v": "é"}, "x://%C3%A9"},
		{"missing is empty", "x://{a}/{b}", map[string]string{"a": "1"}, "x://1/"},
		{"literal only", "x://static", nil, "x://static"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, MustParse(tc.template).Expand(tc.values))
		})
	}
}

func TestExpandMatchRoundTrip(t *testing.T) {
	tpl := MustParse("db://{schema}/{table}.json?v={v}")
	values := map[string]string{"schema": "a/b", "table": "x.json", "v": "1 2&3"}
	m, ok := tpl.Match(tpl.Expand(values))
	require.True(t, ok)
	assert.Equal(t, values, m)
}
