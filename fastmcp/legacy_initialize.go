package fastmcp

import (
	"bytes"

	"github.com/fastmcp-go/fastmcp/decode"
)

// The initialize handshake of the initialize-era dialects, and logging/setLevel: the two
// requests that change what the server knows of the client (see Reply.State).

var (
	errInitParams     = &Error{Code: CodeInvalidParams, Message: "Invalid params: initialize needs protocolVersion, capabilities and clientInfo"}
	errInitVersion    = &Error{Code: CodeInvalidParams, Message: "Invalid params: protocolVersion must be a string"}
	errInitCaps       = &Error{Code: CodeInvalidParams, Message: "Invalid params: capabilities must be an object"}
	errInitClientInfo = &Error{Code: CodeInvalidParams, Message: "Invalid params: clientInfo must be an object with name and version strings"}
	errSetLevel       = &Error{Code: CodeInvalidParams, Message: "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency"}
)

// initialize answers the handshake: it negotiates the version (the one offered when the
// server serves it as an initialize-era dialect, otherwise the newest such dialect served: a
// counter-offer, never an error) and sends the capabilities of the registered components,
// the server's identity in that revision's Implementation, and the instructions.
func (s *Server) initialize(r *Request, dst []byte) ([]byte, error) {
	p := r.msg.Params()
	if p.Type() != decode.TypeObject {
		return nil, errInitParams
	}
	params := p.Raw()
	pv := decode.Lookup(params, "protocolVersion")
	if pv.Type() != decode.TypeString {
		return nil, errInitVersion
	}
	caps := decode.Lookup(params, "capabilities")
	if caps.Type() != decode.TypeObject {
		return nil, errInitCaps
	}
	ci := decode.Lookup(params, "clientInfo")
	if ci.Type() != decode.TypeObject ||
		decode.Lookup(ci.Raw(), "name").Type() != decode.TypeString ||
		decode.Lookup(ci.Raw(), "version").Type() != decode.TypeString {
		return nil, errInitClientInfo
	}
	d := ParseDialect(decode.Unquote(nil, pv.Raw()))
	if !d.Legacy() || !s.serves(d) {
		if d = s.newestLegacy(); d == 0 {
			return nil, s.initializeNotServed(r.msg) // a transport that did not ask Classify
		}
	}
	events := r.client.Events != nil
	dst = append(dst, envelopeID...)
	dst = append(dst, r.ID()...)
	dst = append(dst, envelopeResult+`{"protocolVersion":"`...)
	dst = append(dst, d.Version()...)
	dst = append(dst, `","capabilities":`...)
	dst = appendLegacyCapabilities(dst, r.cat.kinds, events)
	dst = append(dst, `,"serverInfo":`...)
	dst = append(dst, s.legacyInfo[d-Legacy20251125]...)
	dst = appendOptString(dst, "instructions", s.cfg.Instructions)
	dst = append(dst, "}}"...)
	r.newClient = &ConnState{
		Dialect:      d,
		Capabilities: bytes.Clone(caps.Raw()), // the transport keeps it past the message
		LogLevel:     r.client.LogLevel,
		Events:       r.client.Events,
	}
	return dst, nil
}

// appendLegacyCapabilities writes the ServerCapabilities of an initialize-era handshake for
// the kinds of component registered. listChanged and resources.subscribe are advertised only
// where the transport delivers the notifications (events): stateless HTTP has no channel for
// them, and still accepts resources/subscribe (the TypeScript SDK client sends it whatever
// the capability says unless it enforces strict capabilities, which it does not by default).
func appendLegacyCapabilities(dst []byte, kinds componentKind, events bool) []byte {
	dst = append(dst, `{"logging":{}`...)
	if kinds&kindCompletion != 0 {
		dst = append(dst, `,"completions":{}`...)
	}
	if kinds&kindPrompt != 0 {
		dst = append(dst, `,"prompts":`...)
		dst = appendListChangedCap(dst, events)
	}
	if kinds&kindResource != 0 {
		if events {
			dst = append(dst, `,"resources":{"subscribe":true,"listChanged":true}`...)
		} else {
			dst = append(dst, `,"resources":{}`...)
		}
	}
	if kinds&kindTool != 0 {
		dst = append(dst, `,"tools":`...)
		dst = appendListChangedCap(dst, events)
	}
	return append(dst, '}')
}

func appendListChangedCap(dst []byte, events bool) []byte {
	if events {
		return append(dst, `{"listChanged":true}`...)
	}
	return append(dst, `{}`...)
}

// appendLegacyInfo writes the server's Implementation as revision d has it: 2025-06-18 has
// only name, version and title.
func appendLegacyInfo(dst []byte, info Implementation, d Dialect) []byte {
	if d == Legacy20250618 {
		info = Implementation{Name: info.Name, Version: info.Version, Title: info.Title}
	}
	return appendImplementation(dst, info)
}

// setLevel serves logging/setLevel: the level becomes the client's (Reply.State), for a
// transport that keeps it; the result is exactly {}.
func (s *Server) setLevel(r *Request, dst []byte) ([]byte, error) {
	level, ok := parseLogLevel(decode.Lookup(r.msg.Params().Raw(), "level"))
	if !ok {
		return nil, errSetLevel
	}
	c := *r.client
	c.LogLevel = level
	r.newClient = &c
	return appendEmptyResult(dst, r.ID()), nil
}
