package decode

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A string member written with escapes has the same text from Lookup and ValueOf as from the
// full decoder: `"\u0041bc"` is "Abc", wherever it is read.
func TestLookupUnescapesStrings(t *testing.T) {
	for _, c := range []struct{ lit, text string }{
		{`"\u0041bc"`, "Abc"},
		{`"abc"`, "abc"},
		{`""`, ""},
		{`"\ud83d\ude00"`, "😀"},
		{`"\u00e9t\u00C9"`, "étÉ"},
		{`"a\"b\\c\/d"`, `a"b\c/d`},
		{`"\b\f\n\r\t"`, "\b\f\n\r\t"},
		{`"\u0000"`, "\x00"},
	} {
		obj := []byte(`{"taskId":` + c.lit + `,"ids":[` + c.lit + `]}`)
		v := Lookup(obj, "taskId")
		assert.Equal(t, TypeString, v.Type(), c.lit)
		assert.Equal(t, c.lit, string(v.Raw()))
		assert.Equal(t, c.text, v.String(), c.lit)
		assert.NotNil(t, v.Text(), "a string's text is never nil: %s", c.lit)
		assert.Equal(t, c.text, string(v.Text()), c.lit)

		Elements(Lookup(obj, "ids").Raw(), func(raw []byte, typ Type) bool {
			assert.Equal(t, c.text, ValueOf(raw, typ).String(), "ValueOf %s", c.lit)
			return true
		})

		var m Message
		assert.NoError(t, Decode(&m, []byte(req(`{"name":`+c.lit+`}`))))
		assert.Equal(t, string(m.Name().Text()), string(Lookup(m.Params().Raw(), "name").Text()), "Lookup agrees with the decoder: %s", c.lit)
	}
	assert.Nil(t, Lookup([]byte(`{"n":1}`), "n").Text(), "a number has no text")
}
