package jsonschema

import (
	"strconv"
	"unicode/utf8"
)

// node is a derived schema before encoding. Its keywords are written in a fixed order, so the
// output is deterministic: type, format, contentEncoding, description, enum, minimum, maximum,
// minLength, maxLength, items, minItems, maxItems, properties, required, additionalProperties,
// x-mcp-header.
type node struct {
	typ             string // JSON type; "" for no constraint
	format          string
	contentEncoding string
	description     string
	enum            []string // JSON literals
	minimum         string   // JSON number literal; "" if unset
	maximum         string
	minLength       int // -1 if unset (as the other counts)
	maxLength       int
	items           *node
	minItems        int
	maxItems        int
	object          bool // a struct: "properties" is written even when empty
	props           []prop
	required        []string
	additional      *node // for maps; nil or empty means no constraint
	header          string
}

type prop struct {
	name   string
	schema *node
}

func newNode(typ string) *node {
	return &node{typ: typ, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1}
}

// empty reports whether n places no constraint and no annotation ({}).
func (n *node) empty() bool {
	return n.typ == "" && n.format == "" && n.contentEncoding == "" && n.description == "" &&
		len(n.enum) == 0 && n.minimum == "" && n.maximum == "" && n.minLength < 0 && n.maxLength < 0 &&
		n.items == nil && n.minItems < 0 && n.maxItems < 0 && !n.object && n.additional == nil &&
		n.header == ""
}

// appendJSON appends n as compact JSON.
func (n *node) appendJSON(dst []byte) []byte {
	dst = append(dst, '{')
	first := true
	key := func(k string) {
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, k)
		dst = append(dst, ':')
	}
	str := func(k, v string) {
		if v != "" {
			key(k)
			dst = appendString(dst, v)
		}
	}
	raw := func(k, v string) {
		if v != "" {
			key(k)
			dst = append(dst, v...)
		}
	}
	count := func(k string, v int) {
		if v >= 0 {
			key(k)
			dst = strconv.AppendInt(dst, int64(v), 10)
		}
	}
	str("type", n.typ)
	str("format", n.format)
	str("contentEncoding", n.contentEncoding)
	str("description", n.description)
	if len(n.enum) > 0 {
		key("enum")
		dst = append(dst, '[')
		for i, v := range n.enum {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, v...)
		}
		dst = append(dst, ']')
	}
	raw("minimum", n.minimum)
	raw("maximum", n.maximum)
	count("minLength", n.minLength)
	count("maxLength", n.maxLength)
	if n.items != nil && !n.items.empty() {
		key("items")
		dst = n.items.appendJSON(dst)
	}
	count("minItems", n.minItems)
	count("maxItems", n.maxItems)
	if n.object {
		key("properties")
		dst = append(dst, '{')
		for i, p := range n.props {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, p.name)
			dst = append(dst, ':')
			dst = p.schema.appendJSON(dst)
		}
		dst = append(dst, '}')
		if len(n.required) > 0 {
			key("required")
			dst = append(dst, '[')
			for i, r := range n.required {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = appendString(dst, r)
			}
			dst = append(dst, ']')
		}
	}
	if n.additional != nil && !n.additional.empty() {
		key("additionalProperties")
		dst = n.additional.appendJSON(dst)
	}
	str("x-mcp-header", n.header)
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. It escapes only what JSON requires (quote, backslash,
// control characters) plus U+2028 and U+2029; invalid UTF-8 becomes U+FFFD.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
