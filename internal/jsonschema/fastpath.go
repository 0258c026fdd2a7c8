package jsonschema

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonnum"
)

// The fast path.
//
// Most tool input schemas are flat: an object whose properties each declare one primitive type,
// with a required list and maybe "additionalProperties": false. For those, [Schema.Validate]
// first checks the raw bytes without decoding them. The check is one-sided: it reports true only
// when the full validator would accept the instance, and anything it is unsure of (a duplicate
// key, a key with escapes or invalid UTF-8, any failure) goes to the full validator, which then also words the error. So the fast path never
// changes a result, only its cost; FuzzFastPath checks that it agrees with the validator.

// kinds of value a flat property may declare.
type valueKind uint8

const (
	kindAny valueKind = iota
	kindString
	kindInteger
	kindNumber
	kindBoolean
	kindNull
	kindObject
	kindArray
)

var kindByType = map[string]valueKind{
	"string": kindString, "integer": kindInteger, "number": kindNumber, "boolean": kindBoolean,
	"null": kindNull, "object": kindObject, "array": kindArray,
}

// maxFlatNames bounds the property and required names of a flat schema (one bit each).
const maxFlatNames = 64

// flatSchema is a flat object schema, checked on raw bytes by accepts.
type flatSchema struct {
	index    map[string]int // property (or required) name -> bit
	names    []string       // by bit; a short list is scanned faster than the map is hashed
	kinds    []valueKind    // by bit
	declared uint64         // bits of the names under "properties"
	required uint64         // bits of the required names
	closed   bool           // "additionalProperties": false: undeclared names are refused
}

// Keywords with no effect on validation (annotations), allowed anywhere in a flat schema. format
// and the content keywords are annotations because Compile does not assert them.
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "$comment": true, "examples": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

var propertyAnnotationKeywords = map[string]bool{
	"format": true, "contentEncoding": true, "contentMediaType": true,
}

// newFlatSchema returns the flat form of the compiled (so valid) schema document doc, or nil if
// doc is not a flat object schema.
func newFlatSchema(doc any) *flatSchema {
	root, ok := doc.(map[string]any)
	if !ok || root["type"] != "object" {
		return nil
	}
	f := &flatSchema{index: map[string]int{}}
	add := func(name string, k valueKind) bool {
		if _, ok := f.index[name]; ok {
			return true
		}
		if len(f.kinds) == maxFlatNames {
			return false
		}
		f.index[name] = len(f.kinds)
		f.names = append(f.names, name)
		f.kinds = append(f.kinds, k)
		return true
	}
	for kw, v := range root {
		switch {
		case kw == "type":
		case kw == "$schema":
			if s, _ := v.(string); strings.TrimSuffix(s, "#") != "https://json-schema.org/draft/2020-12/schema" {
				return nil
			}
		case kw == "properties":
			for name, ps := range v.(map[string]any) {
				k, ok := flatProperty(ps)
				if !ok || !add(name, k) {
					return nil
				}
				f.declared |= 1 << f.index[name]
			}
		case kw == "additionalProperties":
			switch a := v.(type) {
			case bool:
				f.closed = !a
			case map[string]any:
				if len(a) != 0 {
					return nil
				}
			}
		case kw == "required":
		case annotationKeywords[kw], strings.HasPrefix(kw, "x-"):
		default:
			return nil
		}
	}
	if req, ok := root["required"].([]any); ok {
		for _, r := range req {
			name := r.(string)
			if !add(name, kindAny) {
				return nil
			}
			f.required |= 1 << f.index[name]
		}
	}
	return f
}

// flatProperty returns the kind a property schema declares, if it declares nothing else.
func flatProperty(ps any) (valueKind, bool) {
	switch s := ps.(type) {
	case bool:
		return kindAny, s // false: never valid when present; leave it to the validator
	case map[string]any:
		k := kindAny
		for kw, v := range s {
			switch {
			case kw == "type":
				t, _ := v.(string)
				kk, ok := kindByType[t]
				if !ok {
					return 0, false
				}
				k = kk
			case annotationKeywords[kw], propertyAnnotationKeywords[kw], strings.HasPrefix(kw, "x-"):
			default:
				return 0, false
			}
		}
		return k, true
	}
	return 0, false
}

// accepts reports whether instance certainly matches f; false means "ask the validator".
// decoded vouches that b is an object value of a message decode accepted: valid JSON with
// valid UTF-8, no whitespace around it. It does not allocate.
func (f *flatSchema) accepts(b []byte, decoded bool) bool {
	if !decoded {
		if !json.Valid(b) {
			return false
		}
		if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			return false
		}
	}
	var seen uint64
	ok := true
	decode.Members(b, func(key, v []byte, _ decode.Type) bool {
		// An escaped key may spell a declared name; invalid UTF-8 would be read as U+FFFD.
		if bytes.IndexByte(key, '\\') >= 0 || !decoded && !utf8.Valid(key) {
			ok = false
			return false
		}
		bit, known := f.lookup(key)
		m := uint64(1) << bit
		switch {
		case known && f.closed && f.declared&m == 0:
			ok = false // required but not declared: additional
		case known:
			ok = seen&m == 0 && kindMatches(f.kinds[bit], v)
			seen |= m
		case f.closed:
			ok = false
		}
		return ok
	})
	if !ok {
		return false
	}
	return seen&f.required == f.required
}

// lookup returns the bit of name key.
func (f *flatSchema) lookup(key []byte) (int, bool) {
	if len(f.names) > 8 {
		bit, ok := f.index[string(key)]
		return bit, ok
	}
	for i, n := range f.names {
		if string(key) == n {
			return i, true
		}
	}
	return 0, false
}

// kindMatches reports whether the JSON value v certainly has kind k.
func kindMatches(k valueKind, v []byte) bool {
	switch k {
	case kindAny:
		return true
	case kindString:
		return v[0] == '"'
	case kindBoolean:
		return v[0] == 't' || v[0] == 'f'
	case kindNull:
		return v[0] == 'n'
	case kindObject:
		return v[0] == '{'
	case kindArray:
		return v[0] == '['
	case kindNumber:
		return v[0] == '-' || ('0' <= v[0] && v[0] <= '9')
	case kindInteger:
		if v[0] != '-' && (v[0] < '0' || '9' < v[0]) {
			return false
		}
		if !bytes.ContainsAny(v, ".eE") {
			return true
		}
		x, ok := jsonnum.Parse(v) // 1.0, 1e2 and 1e999999 are integers too
		return ok && x.Integer()
	}
	return false
}
