package oauth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCredential(t *testing.T) {
	const none, bearer, dpop = schemeNone, schemeBearer, schemeDPoP
	tests := []struct {
		name   string
		values []string
		scheme authScheme
		token  string
		fault  credentialFault
	}{
		{"absent", nil, none, "", credentialMissing},
		{"Bearer", []string{"Bearer abc"}, bearer, "abc", credentialOK},
		{"case-insensitive scheme", []string{"bEaReR abc"}, bearer, "abc", credentialOK},
		{"several spaces", []string{"Bearer   abc"}, bearer, "abc", credentialOK},
		{"surrounding whitespace", []string{" \tBearer abc\t "}, bearer, "abc", credentialOK},
		{"b64token alphabet and padding", []string{"Bearer aZ09-._~+/=="}, bearer, "aZ09-._~+/==", credentialOK},
		{"Basic", []string{"Basic YWxpY2U6cHc="}, none, "", credentialMissing},
		{"DPoP", []string{"DPoP abc"}, dpop, "abc", credentialOK},
		{"DPoP, case-insensitive", []string{"dpop  abc"}, dpop, "abc", credentialOK},
		{"DPoP alone", []string{"DPoP"}, dpop, "", credentialMalformed},
		{"DPoP with two tokens", []string{"DPoP a b"}, dpop, "", credentialMalformed},
		{"DPoP over the limit", []string{"DPoP " + strings.Repeat("a", 17)}, dpop, "", credentialTooLarge},
		{"DPoP without a separator", []string{"DPoPabc"}, none, "", credentialMissing},
		{"another scheme alone", []string{"Negotiate"}, none, "", credentialMissing},
		{"repeated", []string{"Bearer a", "Bearer b"}, none, "", credentialRepeated},
		{"repeated, one of another scheme", []string{"Basic x", "Bearer b"}, none, "", credentialRepeated},
		{"empty", []string{""}, none, "", credentialMalformed},
		{"blank", []string{"   "}, none, "", credentialMalformed},
		{"Bearer alone", []string{"Bearer"}, bearer, "", credentialMalformed},
		{"Bearer and spaces", []string{"Bearer   "}, bearer, "", credentialMalformed},
		{"tab instead of space", []string{"Bearer\tabc"}, bearer, "", credentialMalformed},
		{"no separator", []string{"Bearerabc"}, none, "", credentialMissing},
		{"two tokens", []string{"Bearer a b"}, bearer, "", credentialMalformed},
		{"comma list", []string{"Bearer a, Bearer b"}, bearer, "", credentialMalformed},
		{"padding inside", []string{"Bearer a=b"}, bearer, "", credentialMalformed},
		{"only padding", []string{"Bearer =="}, bearer, "", credentialMalformed},
		{"quote", []string{`Bearer a"b`}, bearer, "", credentialMalformed},
		{"non-ASCII", []string{"Bearer a\xffb"}, bearer, "", credentialMalformed},
		{"no scheme", []string{" =abc"}, none, "", credentialMalformed},
		{"garbage after a scheme name", []string{"Bearer\"x"}, bearer, "", credentialMalformed},
		{"garbage after another scheme's name", []string{"Basic\"x"}, none, "", credentialMalformed},
		{"at the limit", []string{"Bearer " + strings.Repeat("a", 16)}, bearer, strings.Repeat("a", 16), credentialOK},
		{"over the limit", []string{"Bearer " + strings.Repeat("a", 17)}, bearer, "", credentialTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var values [][]byte
			for _, v := range tc.values {
				values = append(values, []byte(v))
			}
			scheme, tok, fault := credential(values, 16)
			assert.Equal(t, tc.fault, fault)
			assert.Equal(t, tc.scheme, scheme)
			if fault == credentialOK {
				assert.Equal(t, tc.token, string(tok))
			}
		})
	}
}

// FuzzCredential: the parser never panics, a token it returns is a non-empty b64token
// within the limit that appears in the header, with the scheme Bearer or DPoP, and a header
// it accepts keeps its token and scheme when the scheme's case or the surrounding
// whitespace change.
func FuzzCredential(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Basic x", "Bearer", "Bearer a b", " Bearer  x== ", "Bearer a=b", "\x00", "Bearer \xff", "DPoP a.b.c", "dpop"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		scheme, tok, fault := credential([][]byte{[]byte(header)}, 64)
		if fault != credentialOK {
			assert.Nil(t, tok)
			return
		}
		assert.True(t, isB64Token(tok))
		assert.LessOrEqual(t, len(tok), 64)
		assert.Contains(t, header, string(tok))
		name := map[authScheme]string{schemeBearer: "BEARER", schemeDPoP: "DPOP"}[scheme]
		require.NotEmpty(t, name, "a token comes with a scheme")
		again, tok2, fault := credential([][]byte{[]byte("  " + name + " " + string(tok) + "\t")}, 64)
		assert.Equal(t, credentialOK, fault)
		assert.Equal(t, scheme, again)
		assert.Equal(t, string(tok), string(tok2))
		_, _, fault = credential([][]byte{[]byte(header), []byte(header)}, 64)
		assert.Equal(t, credentialRepeated, fault)
	})
}
