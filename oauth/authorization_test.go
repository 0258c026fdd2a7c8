package oauth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBearerToken(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		token  string
		fault  credentialFault
	}{
		{"absent", nil, "", credentialMissing},
		{"Bearer", []string{"Bearer abc"}, "abc", credentialOK},
		{"case-insensitive scheme", []string{"bEaReR abc"}, "abc", credentialOK},
		{"several spaces", []string{"Bearer   abc"}, "abc", credentialOK},
		{"surrounding whitespace", []string{" \tBearer abc\t "}, "abc", credentialOK},
		{"b64token alphabet and padding", []string{"Bearer aZ09-._~+/=="}, "aZ09-._~+/==", credentialOK},
		{"Basic", []string{"Basic YWxpY2U6cHc="}, "", credentialMissing},
		{"DPoP", []string{"DPoP abc"}, "", credentialMissing},
		{"another scheme alone", []string{"Negotiate"}, "", credentialMissing},
		{"repeated", []string{"Bearer a", "Bearer b"}, "", credentialRepeated},
		{"repeated, one of another scheme", []string{"Basic x", "Bearer b"}, "", credentialRepeated},
		{"empty", []string{""}, "", credentialMalformed},
		{"blank", []string{"   "}, "", credentialMalformed},
		{"Bearer alone", []string{"Bearer"}, "", credentialMalformed},
		{"Bearer and spaces", []string{"Bearer   "}, "", credentialMalformed},
		{"tab instead of space", []string{"Bearer\tabc"}, "", credentialMalformed},
		{"no separator", []string{"Bearerabc"}, "", credentialMissing},
		{"two tokens", []string{"Bearer a b"}, "", credentialMalformed},
		{"comma list", []string{"Bearer a, Bearer b"}, "", credentialMalformed},
		{"padding inside", []string{"Bearer a=b"}, "", credentialMalformed},
		{"only padding", []string{"Bearer =="}, "", credentialMalformed},
		{"quote", []string{`Bearer a"b`}, "", credentialMalformed},
		{"non-ASCII", []string{"Bearer a\xffb"}, "", credentialMalformed},
		{"no scheme", []string{" =abc"}, "", credentialMalformed},
		{"garbage after a scheme name", []string{"Bearer\"x"}, "", credentialMalformed},
		{"at the limit", []string{"Bearer " + strings.Repeat("a", 16)}, strings.Repeat("a", 16), credentialOK},
		{"over the limit", []string{"Bearer " + strings.Repeat("a", 17)}, "", credentialTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var values [][]byte
			for _, v := range tc.values {
				values = append(values, []byte(v))
			}
			tok, fault := bearerToken(values, 16)
			assert.Equal(t, tc.fault, fault)
			if fault == credentialOK {
				assert.Equal(t, tc.token, string(tok))
			}
		})
	}
}

// FuzzBearerToken: the parser never panics, a token it returns is a non-empty b64token
// within the limit that appears in the header, and a header it accepts keeps its token
// when the scheme's case or the surrounding whitespace change.
func FuzzBearerToken(f *testing.F) {
	for _, s := range []string{"Bearer abc", "bearer a.b.c", "Basic x", "Bearer", "Bearer a b", " Bearer  x== ", "Bearer a=b", "\x00", "Bearer \xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, header string) {
		tok, fault := bearerToken([][]byte{[]byte(header)}, 64)
		if fault != credentialOK {
			assert.Nil(t, tok)
			return
		}
		assert.True(t, isB64Token(tok))
		assert.LessOrEqual(t, len(tok), 64)
		assert.Contains(t, header, string(tok))
		again, fault := bearerToken([][]byte{[]byte("  BEARER " + string(tok) + "\t")}, 64)
		assert.Equal(t, credentialOK, fault)
		assert.Equal(t, string(tok), string(again))
		_, fault = bearerToken([][]byte{[]byte(header), []byte(header)}, 64)
		assert.Equal(t, credentialRepeated, fault)
	})
}
