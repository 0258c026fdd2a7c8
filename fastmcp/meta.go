package fastmcp

import (
	"github.com/fastmcp-go/fastmcp/decode"
)

// checkMeta validates the request _meta every 2026-07-28 request carries: the two required
// members, the protocol version, the log level, clientInfo, clientCapabilities and the key
// grammar. Unknown keys and future capability members are preserved, not rejected.
func (s *Server) checkMeta(r *Request) *Error {
	m := r.msg
	pv, caps := m.ProtocolVersion(), m.ClientCapabilities()
	if !pv.Present() || !caps.Present() {
		return errMissingMeta
	}
	if pv.Type() != decode.TypeString || caps.Type() != decode.TypeObject {
		return errInvalidMeta
	}
	if string(pv.Text()) != Version || !s.serves(Modern) {
		return s.unsupportedModernVersion(pv.Raw()) // Config.Dialects may leave 2026-07-28 out
	}
	if lv := m.LogLevel(); lv.Present() {
		level, ok := parseLogLevel(lv)
		if !ok {
			return errInvalidLogLevel
		}
		r.logLevel = level
	}
	if ci := m.ClientInfo(); ci.Present() && (ci.Type() != decode.TypeObject || !s.clientInfos.valid(ci.Raw(), validImplementation)) {
		return errInvalidMeta
	}
	if string(caps.Raw()) != "{}" && !s.clientCaps.valid(caps.Raw(), validClientCapabilities) {
		return errInvalidMeta
	}
	if !m.MetaHasOtherKeys() {
		return nil // every key is a known, valid one
	}
	ok := true
	decode.Members(m.Meta().Raw(), func(key, _ []byte, _ decode.Type) bool {
		ok = validMetaKey(key)
		return ok
	})
	if !ok {
		return errInvalidMeta
	}
	return nil
}

// validMetaKey checks the _meta key grammar: an optional prefix of dot-separated labels and a
// slash, then a name. Labels start with a letter and end with a letter or digit, with letters,
// digits and hyphens between; the name starts and ends with a letter or digit, with hyphens,
// underscores and dots between. Raw keys with escapes are refused: every valid key is ASCII.
func validMetaKey(key []byte) bool {
	name := key
	for i, c := range key {
		if c == '/' {
			if !validPrefix(key[:i]) {
				return false
			}
			name = key[i+1:]
			break
		}
	}
	if len(name) == 0 {
		return false // "prefix/" alone is not a key; "" is not either
	}
	for i, c := range name {
		switch {
		case isAlnum(c):
		case (c == '-' || c == '_' || c == '.') && i > 0 && i < len(name)-1:
		default:
			return false
		}
	}
	return true
}

func validPrefix(p []byte) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '.' {
			continue
		}
		label := p[start:i]
		if len(label) == 0 || !isLetter(label[0]) || !isAlnum(label[len(label)-1]) {
			return false
		}
		for _, c := range label {
			if !isAlnum(c) && c != '-' {
				return false
			}
		}
		start = i + 1
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool  { return isLetter(c) || (c >= '0' && c <= '9') }

// validImplementation checks a clientInfo object: name and version strings, optional title,
// description and websiteUrl strings, and icons.
func validImplementation(obj []byte) bool {
	ok := true
	var name, version bool
	decode.Members(obj, func(key, val []byte, t decode.Type) bool {
		switch string(key) {
		case "name":
			name, ok = true, t == decode.TypeString
		case "version":
			version, ok = true, t == decode.TypeString
		case "title", "description":
			ok = t == decode.TypeString
		case "websiteUrl":
			ok = t == decode.TypeString && isAbsoluteURI(decode.Unquote(nil, val))
		case "icons":
			ok = validIcons(val, t)
		}
		return ok
	})
	return ok && name && version
}

func validIcons(val []byte, t decode.Type) bool {
	if t != decode.TypeArray {
		return false
	}
	ok := true
	decode.Elements(val, func(icon []byte, it decode.Type) bool {
		if it != decode.TypeObject {
			ok = false
			return false
		}
		var src bool
		decode.Members(icon, func(key, v []byte, t decode.Type) bool {
			switch string(key) {
			case "src":
				src, ok = true, t == decode.TypeString && isAbsoluteURI(decode.Unquote(nil, v))
			case "mimeType":
				ok = t == decode.TypeString
			case "sizes":
				ok = t == decode.TypeArray
			case "theme":
				ok = string(v) == `"light"` || string(v) == `"dark"`
			}
			return ok
		})
		ok = ok && src
		return ok
	})
	return ok
}

// validClientCapabilities checks the shapes the server relies on: roots, sampling (and its
// context and tools), elicitation (and form and url), experimental and extensions are objects,
// and extension names contain a slash. Unknown members are kept as they are.
func validClientCapabilities(caps []byte) bool {
	ok := true
	decode.Members(caps, func(key, val []byte, t decode.Type) bool {
		switch string(key) {
		case "roots", "experimental":
			ok = t == decode.TypeObject
		case "sampling":
			ok = t == decode.TypeObject && membersAreObjects(val, "context", "tools")
		case "elicitation":
			ok = t == decode.TypeObject && membersAreObjects(val, "form", "url")
		case "extensions":
			ok = t == decode.TypeObject
			decode.Members(val, func(name, _ []byte, t decode.Type) bool {
				ok = t == decode.TypeObject && containsSlash(name)
				return ok
			})
		}
		return ok
	})
	return ok
}

func membersAreObjects(obj []byte, names ...string) bool {
	for _, n := range names {
		if v := decode.Lookup(obj, n); v.Present() && v.Type() != decode.TypeObject {
			return false
		}
	}
	return true
}

func containsSlash(b []byte) bool {
	for _, c := range b {
		if c == '/' {
			return true
		}
	}
	return false
}

// isAbsoluteURI reports whether u starts with a scheme (RFC 3986: a letter, then letters,
// digits, "+", "-" or "."), a colon, and something after it.
func isAbsoluteURI[T string | []byte](u T) bool {
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case c == ':':
			return i > 0 && i < len(u)-1
		case isLetter(c):
		case i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return false
}

// hasCapability reports whether the client declared the capability at path (for example
// "sampling", "tools").
func hasCapability(caps []byte, path ...string) bool {
	v := decode.Value{}
	obj := caps
	for _, p := range path {
		v = decode.Lookup(obj, p)
		if v.Type() != decode.TypeObject {
			return false
		}
		obj = v.Raw()
	}
	return true
}
