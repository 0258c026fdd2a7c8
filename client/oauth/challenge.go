package oauth

import "strings"

// challenge is one parsed WWW-Authenticate challenge (RFC 9110 §11.6.1).
type challenge struct {
	scheme string            // lowercase: "bearer", "dpop", …
	params map[string]string // lowercase names; the first of a repeated name wins
}

// Bounds of what parseChallenges keeps from one response: a server cannot make the client
// hold more than this, whatever its headers say.
const (
	maxChallenges = 8
	maxParams     = 16
)

// parseChallenges parses WWW-Authenticate header values, each holding one or more
// challenges. Malformed parts are skipped: a challenge is advice, never trusted as more.
func parseChallenges(values []string) []challenge {
	var out []challenge
	for _, v := range values {
		p := scanner{s: v}
		for len(out) < maxChallenges {
			p.skip(" \t,")
			if p.done() {
				break
			}
			scheme := p.token()
			if scheme == "" {
				p.skipPast(',')
				continue
			}
			c := challenge{scheme: strings.ToLower(scheme), params: map[string]string{}}
			p.params(&c)
			out = append(out, c)
		}
	}
	return out
}

// scanner walks one header value.
type scanner struct {
	s string
	i int
}

func (p *scanner) done() bool { return p.i >= len(p.s) }

func (p *scanner) skip(set string) {
	for p.i < len(p.s) && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

// skipPast moves past the next comma outside a quoted string (or to the end).
func (p *scanner) skipPast(c byte) {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '"':
			p.quoted()
			continue
		case c:
			p.i++
			return
		}
		p.i++
	}
}

// params reads auth-params into c until the next challenge's scheme (a token not followed
// by "=") or the end. A token68 (e.g. "abc==") is skipped.
func (p *scanner) params(c *challenge) {
	for {
		p.skip(" \t,")
		mark := p.i
		name := p.token()
		if name == "" {
			if p.done() {
				return
			}
			p.skipPast(',') // not a token: skip this element
			continue
		}
		p.skip(" \t")
		if p.done() || p.s[p.i] != '=' {
			p.i = mark // the next challenge's scheme
			return
		}
		p.i++
		p.skip(" \t")
		var val string
		switch {
		case !p.done() && p.s[p.i] == '"':
			val = p.quoted()
		default:
			val = p.token()
			if val == "" { // a token68's padding, or garbage
				p.skipPast(',')
				continue
			}
		}
		name = strings.ToLower(name)
		if _, dup := c.params[name]; !dup && len(c.params) < maxParams {
			c.params[name] = val
		}
	}
}

// token reads an RFC 9110 token (possibly empty).
func (p *scanner) token() string {
	start := p.i
	for p.i < len(p.s) && tchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// quoted reads a quoted-string at p.i (which is '"'), unescaping quoted-pairs; an
// unterminated one runs to the end.
func (p *scanner) quoted() string {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			return b.String()
		case '\\':
			if p.i < len(p.s) {
				b.WriteByte(p.s[p.i])
				p.i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func tchar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// authChallenge is what a Provider takes from a refusal's challenges: the Bearer or DPoP
// one that carries an error (else the first of them).
type authChallenge struct {
	dpop             bool // a DPoP challenge was among them: the resource takes DPoP-bound tokens
	err              string
	scope            []string
	resourceMetadata string
}

func readChallenge(values []string) authChallenge {
	var out authChallenge
	var pick *challenge
	all := parseChallenges(values)
	for i := range all {
		c := &all[i]
		if c.scheme != "bearer" && c.scheme != "dpop" {
			continue
		}
		if c.scheme == "dpop" {
			out.dpop = true
		}
		if pick == nil || pick.params["error"] == "" && c.params["error"] != "" {
			pick = c
		}
	}
	if pick == nil {
		return out
	}
	out.err = pick.params["error"]
	out.scope = strings.Fields(pick.params["scope"])
	out.resourceMetadata = pick.params["resource_metadata"]
	if out.resourceMetadata == "" { // another challenge may carry it
		for _, c := range all {
			if v := c.params["resource_metadata"]; v != "" && (c.scheme == "bearer" || c.scheme == "dpop") {
				out.resourceMetadata = v
				break
			}
		}
	}
	return out
}
