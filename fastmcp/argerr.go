package fastmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"

	sonicdec "github.com/bytedance/sonic/decoder"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonnum"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// Arguments the schema accepted but a typed tool's Go type cannot hold.
//
// JSON Schema counts 1.0, 1e2, 5e0 and -0.0 as integers, and sonic refuses to decode them into
// an integer field. The general path therefore decodes once more, when sonic refuses, with
// every integer-valued number of at most 20 digits rewritten as a plain integer (1e2 as 100),
// which only calls that would otherwise fail ever see (fields of any other type read the same
// value from either form, except that -0.0 becomes 0). What still fails is described as the
// schema's validator describes its failures, with the location and never sonic's text, which
// quotes the input and names Go types: "arguments: /n: must be <= 127, got 300".

// plainIntegers returns args with every integer-valued number that is not written as a plain
// integer (1.0, 1e2, -0, -0.0) rewritten as one, when it has at most 20 digits; false when
// there is none. args is a JSON value from a decoded message.
func plainIntegers(args []byte) ([]byte, bool) {
	var out []byte
	last, changed := 0, false
	for i := 0; i < len(args); {
		c := args[i]
		switch {
		case c == '"':
			i = decode.StringEnd(args, i)
			continue
		case c != '-' && (c < '0' || c > '9'):
			i++
			continue
		}
		j := i + 1
		for j < len(args) && isNumberByte(args[j]) {
			j++
		}
		lit := args[i:j]
		if !jsonnum.PlainInteger(lit) {
			if x, ok := jsonnum.Parse(lit); ok && x.Integer() {
				if out == nil {
					out = make([]byte, 0, len(args))
				}
				start := len(out)
				out = append(out, args[last:i]...)
				if out, ok = x.AppendInteger(out, 20); ok {
					last, changed = j, true
				} else {
					out = out[:start]
				}
			}
		}
		i = j
	}
	if !changed {
		return nil, false
	}
	return append(out, args[last:]...), true
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// argumentsError words a decoding failure: err came from decoding decoded, which is args or
// its plainIntegers form; locations and quoted literals refer to args.
func argumentsError(args, decoded []byte, err error) *jsonschema.ValidationError {
	var mt *sonicdec.MismatchTypeError
	var ut *json.UnmarshalTypeError
	var se sonicdec.SyntaxError
	switch {
	case errors.As(err, &mt):
		path, v, ok := locate(decoded, mt.Pos, false)
		if !ok {
			break
		}
		if orig, ok := valueAt(args, path); ok {
			v = orig
		}
		return &jsonschema.ValidationError{Location: jsonschema.Pointer(path), Reason: typeReason(mt.Type, v)}
	case errors.As(err, &ut) && ut.Type != nil:
		// Sonic's range errors carry the literal but no offset: name the location only when
		// the literal occurs once.
		lit := []byte(ut.Value)
		if _, ok := jsonnum.Parse(lit); !ok {
			break
		}
		path, n := findNumber(decoded, lit)
		loc := ""
		if n == 1 {
			if orig, ok := valueAt(args, path); ok {
				lit = orig
			}
			loc = jsonschema.Pointer(path)
		}
		return &jsonschema.ValidationError{Location: loc, Reason: typeReason(ut.Type, lit)}
	case errors.As(err, &se) && se.Code == sonicFloatInfinity:
		// A number too large for a float64 where the Go type takes any value (any, map[string]any).
		path, v, ok := locate(decoded, se.Pos, true)
		if !ok || valueType(v) != "number" {
			break
		}
		if orig, ok := valueAt(args, path); ok {
			v = orig
		}
		x, _ := jsonnum.Parse(v)
		return &jsonschema.ValidationError{Location: jsonschema.Pointer(path), Reason: floatRange(x, math.MaxFloat64, jsonschema.QuoteNumber(string(v)))}
	}
	return &jsonschema.ValidationError{Reason: "do not match the types the tool accepts"}
}

// typeReason says why the JSON value v does not fit Go type t, in the validator's words.
func typeReason(t reflect.Type, v []byte) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	want := jsonType(t)
	got := valueType(v)
	if got == "number" {
		x, _ := jsonnum.Parse(v)
		lit := jsonschema.QuoteNumber(string(v))
		switch {
		case want == "integer" && !x.Integer():
			return "expected integer, got number"
		case want == "integer":
			lo, hi := intRange(t)
			if x.Neg {
				return "must be >= " + lo + ", got " + lit
			}
			return "must be <= " + hi + ", got " + lit
		case want == "number" && t.Kind() == reflect.Float32:
			return floatRange(x, math.MaxFloat32, lit)
		case want == "number":
			return floatRange(x, math.MaxFloat64, lit)
		}
	}
	if want == "" {
		return "does not match the type the tool accepts"
	}
	return "expected " + want + ", got " + got
}

func floatRange(x jsonnum.Number, limit float64, lit string) string {
	bound := strconv.FormatFloat(limit, 'g', -1, 64)
	if x.Neg {
		return "must be >= -" + bound + ", got " + lit
	}
	return "must be <= " + bound + ", got " + lit
}

// intRange returns the bounds of integer type t as decimal strings.
func intRange(t reflect.Type) (lo, hi string) {
	bits := t.Bits()
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "0", strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
	}
	return strconv.FormatInt(math.MinInt64>>(64-bits), 10), strconv.FormatInt(math.MaxInt64>>(64-bits), 10)
}

var rawJSONType = reflect.TypeFor[json.RawMessage]()

// jsonType returns the JSON Schema type of the values Go type t decodes, "" when it is not
// one type.
func jsonType(t reflect.Type) string {
	switch {
	case t == jsonNumber:
		return "number"
	case t == rawJSONType || t.Kind() == reflect.Interface:
		return ""
	case reflect.PointerTo(t).Implements(jsonUnmarshaler):
		return ""
	case reflect.PointerTo(t).Implements(textUnmarshaler):
		return "string" // time.Time among them
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string" // base64
		}
		return "array"
	case reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return ""
}

// valueType returns the JSON type of the value starting v.
func valueType(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// offsetIn returns the offset of sub within b; sub is a subslice of b.
func offsetIn(b, sub []byte) int { return cap(b) - cap(sub) }

// sonicFloatInfinity is the code of sonic's SyntaxError for a number beyond float64
// (types.ERR_FLOAT_INFINITY, internal to sonic).
const sonicFloatInfinity = 8

// locate returns the path to the innermost value of the JSON value b that starts at byte
// offset off (or, with end, ends there), and that value.
func locate(b []byte, off int, end bool) ([]string, []byte, bool) {
	var path []string
	v := b
	if end {
		off-- // the last byte of the value
	}
	for {
		if start := offsetIn(b, v); !end && start == off || end && start+len(v)-1 == off && v[0] != '{' && v[0] != '[' {
			return path, v, true
		}
		found := false
		switch v[0] {
		case '{':
			decode.Members(v, func(key, value []byte, _ decode.Type) bool {
				start := offsetIn(b, value)
				if off >= start && off < start+len(value) {
					path = append(path, keyText(b, key))
					v, found = value, true
					return false
				}
				return true
			})
		case '[':
			i := 0
			decode.Elements(v, func(value []byte, _ decode.Type) bool {
				start := offsetIn(b, value)
				if off >= start && off < start+len(value) {
					path = append(path, strconv.Itoa(i))
					v, found = value, true
					return false
				}
				i++
				return true
			})
		}
		if !found {
			return nil, nil, false
		}
	}
}

// keyText returns the unescaped text of a member key of b (key is its raw content).
func keyText(b, key []byte) string {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key)
	}
	start := offsetIn(b, key)
	return string(decode.Unquote(nil, b[start-1:start+len(key)+1]))
}

// valueAt returns the value of the JSON value b at path.
func valueAt(b []byte, path []string) ([]byte, bool) {
	v := b
	for _, tok := range path {
		switch {
		case len(v) > 0 && v[0] == '{':
			m := decode.Lookup(v, tok)
			if !m.Present() {
				return nil, false
			}
			v = m.Raw()
		case len(v) > 0 && v[0] == '[':
			want, err := strconv.Atoi(tok)
			if err != nil {
				return nil, false
			}
			var found []byte
			i := 0
			decode.Elements(v, func(e []byte, _ decode.Type) bool {
				if i == want {
					found = e
					return false
				}
				i++
				return true
			})
			if found == nil {
				return nil, false
			}
			v = found
		default:
			return nil, false
		}
	}
	return v, true
}

// findNumber returns the path of the first number literal in b equal to lit and how many there
// are (counting stops at 2).
func findNumber(b, lit []byte) ([]string, int) {
	var first []string
	n := 0
	var walk func(v []byte, path []string)
	walk = func(v []byte, path []string) {
		if n > 1 || len(v) == 0 {
			return
		}
		switch v[0] {
		case '{':
			decode.Members(v, func(key, value []byte, _ decode.Type) bool {
				walk(value, append(path[:len(path):len(path)], keyText(b, key)))
				return n < 2
			})
		case '[':
			i := 0
			decode.Elements(v, func(value []byte, _ decode.Type) bool {
				walk(value, append(path[:len(path):len(path)], strconv.Itoa(i)))
				i++
				return n < 2
			})
		default:
			if bytes.Equal(v, lit) {
				if n == 0 {
					first = path
				}
				n++
			}
		}
	}
	walk(b, nil)
	return first, n
}
