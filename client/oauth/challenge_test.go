package oauth

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseChallenges(t *testing.T) {
	type c = challenge
	p := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for name, tc := range map[string]struct {
		in   []string
		want []challenge
	}{
		// The conformance suite's mock resource server (TypeScript SDK requireBearerAuth).
		"sdk 401": {[]string{`Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp"`},
			[]c{{"bearer", p("error", "invalid_token", "error_description", "Missing Authorization header", "resource_metadata", "http://localhost:3000/.well-known/oauth-protected-resource/mcp")}}},
		"step-up 403": {[]string{`Bearer scope="mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", error="insufficient_scope"`},
			[]c{{"bearer", p("scope", "mcp:write", "resource_metadata", "http://h/.well-known/oauth-protected-resource/mcp", "error", "insufficient_scope")}}},
		"dpop nonce": {[]string{`DPoP error="use_dpop_nonce", resource_metadata="http://h/prm"`},
			[]c{{"dpop", p("error", "use_dpop_nonce", "resource_metadata", "http://h/prm")}}},
		"two in one header": {[]string{`Bearer realm="mcp", scope="a b", DPoP algs="ES256 PS256"`},
			[]c{{"bearer", p("realm", "mcp", "scope", "a b")}, {"dpop", p("algs", "ES256 PS256")}}},
		"two headers": {[]string{`Basic realm="x"`, `bearer`},
			[]c{{"basic", p("realm", "x")}, {"bearer", p()}}},
		"token values, spaces, case": {[]string{"BEARER  Error = invalid_token ,Scope=\"x\""},
			[]c{{"bearer", p("error", "invalid_token", "scope", "x")}}},
		"quoted pairs": {[]string{`Bearer error_description="say \"hi\", \\ ok", scope="s"`},
			[]c{{"bearer", p("error_description", `say "hi", \ ok`, "scope", "s")}}},
		"token68 then a challenge": {[]string{`Negotiate abc==, Bearer scope="s"`},
			[]c{{"negotiate", p()}, {"bearer", p("scope", "s")}}},
		"first of a repeated param": {[]string{`Bearer scope="a", scope="b"`}, []c{{"bearer", p("scope", "a")}}},
		"unterminated quote":        {[]string{`Bearer scope="a b`}, []c{{"bearer", p("scope", "a b")}}},
		"garbage to the next comma": {[]string{`, ,="x", @@@ x, Bearer scope=`}, []c{{"bearer", p()}}},
		"empty":                     {[]string{""}, nil},
	} {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, parseChallenges(tc.in))
		})
	}
}

func TestParseChallengesBounds(t *testing.T) {
	many := strings.Repeat(`Bearer a="1", `, 3*maxChallenges)
	assert.Len(t, parseChallenges([]string{many}), maxChallenges)
	var params []string
	for i := range 3 * maxParams {
		params = append(params, string(rune('a'+i%26))+strings.Repeat("x", i)+`="v"`)
	}
	got := parseChallenges([]string{"Bearer " + strings.Join(params, ", ")})
	assert.Len(t, got, 1)
	assert.Len(t, got[0].params, maxParams)
}

func TestReadChallenge(t *testing.T) {
	got := readChallenge([]string{`Bearer realm="x", resource_metadata="http://h/prm"`, `DPoP error="invalid_token", scope="a  b"`})
	assert.Equal(t, authChallenge{dpop: true, err: "invalid_token", scope: []string{"a", "b"}, resourceMetadata: "http://h/prm"}, got)
	assert.Equal(t, authChallenge{}, readChallenge([]string{`Basic realm="x"`}))
	assert.Equal(t, authChallenge{}, readChallenge(nil))
}

// FuzzParseChallenges: any header value parses without a panic, within the bounds, and a
// challenge written from what was parsed parses back to the same.
func FuzzParseChallenges(f *testing.F) {
	for _, s := range []string{
		`Bearer error="invalid_token", resource_metadata="http://h/prm", scope="a b"`,
		`DPoP error="use_dpop_nonce", algs="ES256"`, `Negotiate abc==, Bearer scope="s"`,
		`Bearer x="\"\\"`, `,,=`, `Bearer scope="a`, "Bearer\tx=y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := parseChallenges([]string{s})
		if len(got) > maxChallenges {
			t.Fatalf("%d challenges", len(got))
		}
		var b strings.Builder
		for i, c := range got {
			if len(c.params) > maxParams {
				t.Fatalf("%d params", len(c.params))
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(c.scheme)
			first := true
			for k, v := range c.params {
				if !first {
					b.WriteByte(',')
				}
				first = false
				b.WriteString(" " + k + `="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`)
			}
		}
		again := parseChallenges([]string{b.String()})
		if len(again) != len(got) {
			t.Fatalf("%q -> %q: %d challenges, then %d", s, b.String(), len(got), len(again))
		}
		for i := range got {
			assert.Equal(t, got[i], again[i], "%q -> %q", s, b.String())
		}
	})
}
