package uritemplate

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		name     string
		template string
		vars     []string
		prefix   string
	}{
		{"literal only", "test://static/resource", []string{}, "test://static/resource"},
		{"one var in path", "test://template/{id}/data", []string{"id"}, "test://template/"},
		{"file root", "file:///{path}", []string{"path"}, "file:///"},
		{"leading var", "{scheme}://x", []string{"scheme"}, ""},
		{"two vars", "db://{schema}/{table}.json", []string{"schema", "table"}, "db://"},
		{"dotted name", "x://{a.b}/", []string{"a.b"}, "x://"},
		{"pct name", "x://{a%20b}/", []string{"a%20b"}, "x://"},
		{"digits and underscore", "x://{_1}/{A9}", []string{"_1", "A9"}, "x://"},
		{"max vars", manyVars(MaxVars), nil, ""},
		{"max length", "x://" + strings.Repeat("a", MaxTemplateBytes-4), []string{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := Parse(tc.template)
			require.NoError(t, err)
			assert.Equal(t, tc.template, tpl.String())
			if tc.vars != nil {
				assert.Equal(t, tc.vars, tpl.Variables())
				assert.Equal(t, len(tc.vars), tpl.NumVars())
			}
			if tc.prefix != "" {
				assert.Equal(t, tc.prefix, tpl.prefix)
			}
		})
	}
}

// manyVars returns a template with n variables v0..v(n-1).
func manyVars(n int) string {
	var b strings.Builder
	b.WriteString("x://")
	for i := range n {
		b.WriteString("{v" + strconv.Itoa(i) + "}/")
	}
	return b.String()
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name     string
		template string
		want     error
		offset   int
		detail   string // substring of the message
	}{
		{"empty", "", ErrSyntax, 0, "empty template"},
		{"too long", "x://" + strings.Repeat("a", MaxTemplateBytes-3), ErrTooLong, MaxTemplateBytes, "1025 bytes, the limit is 1024"},
		{"too many vars", manyVars(MaxVars + 1), ErrTooManyVars, strings.Index(manyVars(MaxVars+1), "{v32}"), "more than 32"},
		{"unclosed", "x://{id", ErrSyntax, 4, "unclosed '{'"},
		{"stray close", "x://id}", ErrSyntax, 6, "'}' outside"},
		{"empty expr", "x://{}", ErrSyntax, 4, "empty expression"},
		{"nested", "x://{a{b}}", ErrSyntax, 6, "invalid character '{'"},
		{"space", "x://{a b}", ErrSyntax, 6, "invalid character ' '"},
		{"dash", "x://{a-b}", ErrSyntax, 6, "invalid character '-'"},
		{"bad pct", "x://{a%2}", ErrSyntax, 6, "percent-encoding"},
		{"bad pct hex", "x://{a%zz}", ErrSyntax, 6, "percent-encoding"},
		{"leading dot", "x://{.a}", ErrUnsupported, 5, "label expansion"},
		{"trailing dot", "x://{a.}", ErrSyntax, 6, "'.'"},
		{"double dot", "x://{a..b}", ErrSyntax, 7, "'.'"},
		{"reserved", "x://{+path}", ErrUnsupported, 5, "reserved expansion {+var} (level 2)"},
		{"fragment", "x://{#frag}", ErrUnsupported, 5, "fragment expansion"},
		{"path segment", "x://{/seg}", ErrUnsupported, 5, "path segment expansion"},
		{"path param", "x://{;p}", ErrUnsupported, 5, "path-style"},
		{"query", "x://s{?q}", ErrUnsupported, 6, "form-style query expansion"},
		{"query cont", "x://s?a=1{&q}", ErrUnsupported, 10, "continuation"},
		{"reserved op", "x://{=q}", ErrUnsupported, 5, "reserves"},
		{"bang op", "x://{!q}", ErrUnsupported, 5, "reserves"},
		{"prefix", "x://{id:3}", ErrUnsupported, 7, "prefix modifier"},
		{"explode", "x://{id*}", ErrUnsupported, 7, "explode modifier"},
		{"list", "x://{a,b}", ErrUnsupported, 6, "several variables"},
		{"duplicate", "x://{id}/{id}", ErrDuplicateVar, 9, `"id" appears twice`},
		{"adjacent", "x://{a}{b}", ErrAdjacentVars, 7, "between {a}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tpl, err := Parse(tc.template)
			require.Error(t, err)
			assert.Nil(t, tpl)
			require.ErrorIs(t, err, tc.want)
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tc.offset, pe.Offset)
			assert.Contains(t, err.Error(), tc.detail)
			assert.True(t, strings.HasPrefix(err.Error(), "uritemplate: "), err.Error())
		})
	}
}

func TestMustParse(t *testing.T) {
	assert.Equal(t, "x://{a}", MustParse("x://{a}").String())
	assert.Panics(t, func() { MustParse("x://{+a}") })
}

func TestVariablesIsCopy(t *testing.T) {
	tpl := MustParse("x://{a}/{b}")
	names := tpl.Variables()
	names[0] = "changed"
	assert.Equal(t, []string{"a", "b"}, tpl.Variables())
}

func TestFailureTable(t *testing.T) {
	tests := []struct {
		lit  string
		want []int16
	}{
		{"a", []int16{0}},
		{"aaaa", []int16{0, 1, 2, 3}},
		{"abab", []int16{0, 0, 1, 2}},
		{"aabaaab", []int16{0, 1, 0, 1, 2, 2, 3}},
		{"/data", []int16{0, 0, 0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.lit, func(t *testing.T) {
			assert.Equal(t, tc.want, failureTable(tc.lit))
		})
	}
}
