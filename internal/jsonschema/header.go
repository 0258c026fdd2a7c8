package jsonschema

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonnum"
)

// HeaderPrefix is the prefix of the HTTP header that mirrors an x-mcp-header argument.
const HeaderPrefix = "Mcp-Param-"

// HeaderParam is one x-mcp-header annotation of a tool's input schema: the argument at Path is
// mirrored in the HTTP header [HeaderPrefix]+Name over Streamable HTTP.
type HeaderParam struct {
	Name string   // the annotation's value, for example "Region"
	Path []string // property names from the root, for example ["region"] or ["options", "limit"]
	Type string   // the property's type: "string", "integer" or "boolean"
}

// Header returns the HTTP header name, for example "Mcp-Param-Region".
func (p HeaderParam) Header() string { return HeaderPrefix + p.Name }

// MaxHeaderInteger is the largest magnitude of an integer mirrored in a Mcp-Param-* header:
// 2^53-1, as the 2026-07-28 specification bounds them (so that every reader, float64 ones
// included, sees the same value).
const MaxHeaderInteger = 1<<53 - 1

// Matches reports whether header, a Mcp-Param-* value already trimmed and decoded from its
// =?base64?…?= form, mirrors body, the argument's value in the request (present, not null).
// The comparison decides whether an intermediary that routes on the header saw the value the
// server executes, so it accepts only the forms the specification's conversions produce:
//
//   - string: the header is the string's text, byte for byte;
//   - boolean: the header is "true" or "false", as the body is;
//   - integer: the header is the canonical decimal form ("0", or an optional "-" and digits
//     without leading zeros: no "+", fraction, exponent, "0x…" or "_"), the body is any
//     number JSON Schema counts as an integer (42, 42.0, 4.2e1), both are within
//     ±[MaxHeaderInteger], and they are equal exactly (never through float64).
func (p HeaderParam) Matches(header []byte, body decode.Value) bool {
	switch p.Type {
	case "string":
		if body.Type() != decode.TypeString {
			return false
		}
		text := body.Text()
		if text == nil {
			text = decode.Unquote(nil, body.Raw())
		}
		return bytes.Equal(header, text)
	case "boolean":
		return body.Type() == decode.TypeBool && string(header) == string(body.Raw())
	case "integer":
		if (body.Type() != decode.TypeInteger && body.Type() != decode.TypeNumber) ||
			!jsonnum.PlainInteger(header) || len(header) > len("-9007199254740991") {
			return false
		}
		h, ok1 := headerInteger(header)
		b, ok2 := headerInteger(body.Raw())
		return ok1 && ok2 && h == b
	}
	return false
}

// headerInteger reads a number literal with an integer value within ±MaxHeaderInteger.
func headerInteger(lit []byte) (int64, bool) {
	x, ok := jsonnum.Parse(lit)
	if !ok {
		return 0, false
	}
	v, ok := x.Int64()
	return v, ok && v >= -MaxHeaderInteger && v <= MaxHeaderInteger
}

// HeaderParams extracts and validates the x-mcp-header annotations of a tool's input schema,
// given as JSON. The result is sorted by Path and is empty (nil) when there are none.
//
// The rules follow the 2026-07-28 specification (SEP-2243); a violation is an error wrapping
// [ErrInvalidHeader] that names the schema location:
//
//   - the value is a non-empty string of RFC 9110 token characters
//     (!#$%&'*+-.^_`|~, digits, letters), so it cannot hold CR, LF or other control characters;
//   - names are unique within the schema, compared ignoring (ASCII) case;
//   - the annotated property declares "type" as exactly one of "string", "integer" or
//     "boolean" (not "number", not a list of types);
//   - the property is reached from the root through a chain of "properties" keywords only: the
//     root itself and anything under items, prefixItems, additionalProperties,
//     patternProperties, allOf, anyOf, oneOf, not, if, then, else, $defs or other subschema
//     keywords cannot carry one. The values of data keywords (const, default, enum, examples) and
//     of unknown keywords are not searched.
//
// Input that is not JSON wraps [ErrInvalidSchema]; input over [MaxSchemaBytes] or
// [MaxSchemaDepth] is a [*LimitError].
func HeaderParams(schema []byte) ([]HeaderParam, error) {
	if err := checkSchemaBytes(schema); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	w := headerWalker{names: map[string]string{}}
	if err := w.walk(doc, "", nil, true); err != nil {
		return nil, err
	}
	slices.SortFunc(w.params, func(a, b HeaderParam) int { return slices.Compare(a.Path, b.Path) })
	return w.params, nil
}

// Subschema keywords of JSON Schema 2020-12 (and the draft-07 forms), by shape.
var (
	schemaKeywords = []string{
		"additionalItems", "additionalProperties", "contains", "contentSchema", "else", "if",
		"items", "not", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties",
	}
	schemaListKeywords = []string{"allOf", "anyOf", "items", "oneOf", "prefixItems"}
	schemaMapKeywords  = []string{
		"$defs", "definitions", "dependencies", "dependentSchemas", "patternProperties", "properties",
	}
)

type headerWalker struct {
	names  map[string]string // lower-cased name -> schema location using it
	params []HeaderParam
}

// walk visits schema v at JSON Pointer ptr. path holds the property names when v is reached
// through properties only (chain); the root has chain true and an empty path.
func (w *headerWalker) walk(v any, ptr string, path []string, chain bool) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil // a boolean schema, or something Compile will refuse
	}
	if h, ok := obj["x-mcp-header"]; ok {
		if err := w.annotation(obj, h, ptr, path, chain); err != nil {
			return err
		}
	}
	for _, kw := range schemaKeywords {
		if sub, ok := obj[kw]; ok {
			if err := w.walk(sub, ptr+"/"+kw, nil, false); err != nil {
				return err
			}
		}
	}
	for _, kw := range schemaListKeywords {
		list, ok := obj[kw].([]any)
		if !ok {
			continue
		}
		for i, sub := range list {
			if err := w.walk(sub, ptr+"/"+kw+"/"+strconv.Itoa(i), nil, false); err != nil {
				return err
			}
		}
	}
	for _, kw := range schemaMapKeywords {
		m, ok := obj[kw].(map[string]any)
		if !ok {
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			subPtr := ptr + "/" + kw + "/" + escapePointerToken(k)
			var err error
			if kw == "properties" && chain {
				err = w.walk(m[k], subPtr, append(slices.Clip(path), k), true)
			} else {
				err = w.walk(m[k], subPtr, nil, false)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *headerWalker) annotation(obj map[string]any, h any, ptr string, path []string, chain bool) error {
	where := ptr
	if where == "" {
		where = "root"
	}
	if !chain || len(path) == 0 {
		return fmt.Errorf("%w: at %s: only properties reached from the root through \"properties\" can carry x-mcp-header", ErrInvalidHeader, where)
	}
	name, ok := h.(string)
	if !ok {
		return fmt.Errorf("%w: at %s: the value must be a string", ErrInvalidHeader, where)
	}
	if err := checkHeaderName(name); err != nil {
		return fmt.Errorf("%w: at %s: %v", ErrInvalidHeader, where, err)
	}
	typ, _ := obj["type"].(string)
	if !headerTypeAllowed[typ] {
		return fmt.Errorf("%w: at %s: the property's \"type\" must be \"string\", \"integer\" or \"boolean\"", ErrInvalidHeader, where)
	}
	key := strings.ToLower(name)
	if other, ok := w.names[key]; ok {
		return fmt.Errorf("%w: at %s: header name %q is already used at %s (names are compared ignoring case)", ErrInvalidHeader, where, name, other)
	}
	w.names[key] = where
	w.params = append(w.params, HeaderParam{Name: name, Path: path, Type: typ})
	return nil
}

// checkHeaderName reports whether name is a non-empty RFC 9110 token.
func checkHeaderName(name string) error {
	if name == "" {
		return fmt.Errorf("the header name is empty")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isTokenChar(c) {
			if c > ' ' && c < 0x7f {
				return fmt.Errorf("header name %q: %q is not an HTTP token character", name, c)
			}
			return fmt.Errorf("header name %q: byte %d (0x%02x) is not an HTTP token character", name, i, c)
		}
	}
	return nil
}

// isTokenChar reports whether c is an RFC 9110 tchar.
func isTokenChar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// escapePointerToken escapes one JSON Pointer reference token (RFC 6901).
func escapePointerToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
