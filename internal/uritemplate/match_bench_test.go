package uritemplate

import (
	"strconv"
	"strings"
	"testing"
)

type benchCase struct {
	name     string
	template string
	uri      string
	ok       bool
}

// kmpLiteral is a literal that makes naive substring search quadratic on a
// run of 'a': every position matches 499 bytes before failing.
var kmpLiteral = strings.Repeat("a", 499) + "b"

func matchBenchCases() []benchCase {
	cases := []benchCase{
		{"case=static", "test://static/resource", "test://static/resource", true},
		{"case=one-var", "test://template/{id}/data", "test://template/12345/data", true},
		{"case=two-vars", "db://{schema}/{table}.json", "db://public/users.json", true},
		{"case=decode", "file:///{name}", "file:///my%20notes%2F2024.txt", true},
		{"case=miss-prefix", "test://template/{id}/data", "test://other/12345/data", false},
		{"case=miss-scan", "x://{a}/{b}/{c}", "x://1/2", false},
	}
	for _, size := range []int{64 << 10, 1 << 20} {
		sz := "size=" + strconv.Itoa(size>>10) + "KiB"
		// A literal that naive search would compare almost fully at every
		// position; KMP consumes each byte once.
		cases = append(cases,
			benchCase{"case=adversarial-kmp/" + sz, "x://{a}" + kmpLiteral + "{b}",
				"x://" + strings.Repeat("a", size), false},
			benchCase{"case=adversarial-kmp-hit/" + sz, "x://{a}" + kmpLiteral + "{b}",
				"x://" + strings.Repeat("a", size) + "b1", true},
			// 32 variables over a URI without delimiters: every middle scan
			// stops at its first '.', and the last value is the long rest.
			benchCase{"case=adversarial-vars/" + sz, manyDotVars(MaxVars),
				"x://" + strings.Repeat("1.", size/2), true},
			// A long value that needs decoding.
			benchCase{"case=adversarial-decode/" + sz, "x://{a}",
				"x://" + strings.Repeat("%41", size/3), true},
		)
	}
	return cases
}

// manyDotVars returns "x://{v0}.{v1}. ... .{v(n-1)}".
func manyDotVars(n int) string {
	var b strings.Builder
	b.WriteString("x://")
	for i := range n {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString("{v" + strconv.Itoa(i) + "}")
	}
	return b.String()
}

func BenchmarkMatch(b *testing.B) {
	for _, bc := range matchBenchCases() {
		b.Run(bc.name, func(b *testing.B) {
			tpl := MustParse(bc.template)
			dst := make([]Var, 0, MaxVars)
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.uri)))
			for b.Loop() {
				dst, _ = tpl.MatchAppend(dst[:0], bc.uri)
			}
		})
	}
}

// TestBenchmarkMatch runs every benchmark case once and checks its outcome,
// so a broken benchmark fails go test.
func TestBenchmarkMatch(t *testing.T) {
	for _, bc := range matchBenchCases() {
		t.Run(bc.name, func(t *testing.T) {
			tpl := MustParse(bc.template)
			if _, ok := tpl.MatchAppend(nil, bc.uri); ok != bc.ok {
				t.Fatalf("MatchAppend ok = %v, want %v", ok, bc.ok)
			}
		})
	}
}

func BenchmarkParse(b *testing.B) {
	for _, bc := range []benchCase{
		{name: "case=one-var", template: "test://template/{id}/data"},
		{name: "case=32-vars", template: manyDotVars(MaxVars)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.template)))
			for b.Loop() {
				if _, err := Parse(bc.template); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExpand(b *testing.B) {
	tpl := MustParse("db://{schema}/{table}.json")
	values := map[string]string{"schema": "public", "table": "user log"}
	b.ReportAllocs()
	for b.Loop() {
		_ = tpl.Expand(values)
	}
}
