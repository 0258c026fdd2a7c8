package fastmcp

import "github.com/fastmcp-go/fastmcp/decode"

// legacySchema reports whether the initialize-era revisions can express a tool's input or
// output schema: their Tool restricts both to "type":"object" at the root, with properties,
// if present, an object of schema objects (no boolean schemas), required an array of
// strings, and $schema (2025-11-25) a string. 2026-07-28 allows any JSON Schema for the
// output, and a boolean property schema anywhere. Both revisions restrict alike, so one
// answer serves both. Everything else (composition, conditionals, $defs, …) is allowed:
// those schemas list no additionalProperties:false.
func legacySchema(schema []byte) bool {
	if decode.Lookup(schema, "type").String() != "object" {
		return false
	}
	if v := decode.Lookup(schema, "$schema"); v.Present() && v.Type() != decode.TypeString {
		return false
	}
	ok := true
	if v := decode.Lookup(schema, "properties"); v.Present() {
		if v.Type() != decode.TypeObject {
			return false
		}
		decode.Members(v.Raw(), func(_, _ []byte, t decode.Type) bool {
			ok = t == decode.TypeObject
			return ok
		})
	}
	if v := decode.Lookup(schema, "required"); ok && v.Present() {
		if v.Type() != decode.TypeArray {
			return false
		}
		decode.Elements(v.Raw(), func(_ []byte, t decode.Type) bool {
			ok = t == decode.TypeString
			return ok
		})
	}
	return ok
}

// isJSONObject reports whether raw, one JSON value, is an object.
func isJSONObject(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
