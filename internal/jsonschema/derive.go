package jsonschema

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Struct tags read by [Derive].
const (
	// TagDescription holds a property's description: `description:"City name"`.
	TagDescription = "description"
	// TagOptions holds validation options: `jsonschema:"enum=a|b,minLength=1"` (see [Derive]).
	TagOptions = "jsonschema"
	// TagHeader names the Mcp-Param header that mirrors a property: `mcpheader:"Region"` adds
	// "x-mcp-header":"Region" to the property's schema.
	TagHeader = "mcpheader"
)

var (
	timeType          = reflect.TypeFor[time.Time]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
	numberType        = reflect.TypeFor[json.Number]()
	jsonMarshaler     = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	textMarshaler     = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshaler   = reflect.TypeFor[encoding.TextUnmarshaler]()
	headerTypeAllowed = map[string]bool{"string": true, "integer": true, "boolean": true}
)

// Derive returns the JSON Schema (2020-12) of the JSON form of T, as compact JSON, for use as a
// tool's inputSchema. T must describe a JSON object: a struct or a map with string-like keys
// (after pointers); otherwise the error wraps [ErrNotObject]. See [DeriveType] for the mapping.
func Derive[T any]() ([]byte, error) {
	return DeriveType(reflect.TypeFor[T]())
}

// DeriveType returns the JSON Schema (2020-12) of the JSON form of t, as compact JSON.
//
// The schema follows encoding/json:
//
//   - struct: {"type":"object","properties":{...},"required":[...]}. Property names come from
//     json tags; `json:"-"` skips a field; embedded structs without a json name are flattened with
//     the encoding/json conflict rules; properties appear in field order. A field is required
//     unless its tag has omitempty or omitzero (override with `jsonschema:"required"` or
//     `jsonschema:"optional"`). A `description:"..."` tag sets the property's description.
//     No additionalProperties keyword is written: unknown keys are allowed, as encoding/json
//     ignores them.
//   - bool: boolean; signed integers: integer; unsigned integers: integer with "minimum":0;
//     float32/float64: number; string: string; a field with the ",string" json option: string.
//   - slice or array: {"type":"array","items":...}; []byte: a base64 string
//     ({"type":"string","contentEncoding":"base64"}).
//   - map with string, integer or encoding.TextMarshaler keys: {"type":"object",
//     "additionalProperties":...}.
//   - pointer: the schema of the element (null is not added).
//   - time.Time: {"type":"string","format":"date-time"}; json.Number: number.
//   - interface types (any), json.RawMessage and other types with their own MarshalJSON or
//     UnmarshalJSON: {} (no constraint); other encoding.TextMarshaler/TextUnmarshaler types:
//     string.
//
// An "items" or "additionalProperties" schema that would be {} is left out.
//
// The `jsonschema` tag takes comma-separated options for the field's own schema:
// enum=a|b|c (string, integer, number or boolean fields), minimum=N and maximum=N (integer and
// number fields), minLength=N, maxLength=N and format=name (string fields), minItems=N and
// maxItems=N (array fields), required and optional. Values cannot contain commas. A malformed
// or misplaced option is an error wrapping [ErrInvalidTag].
//
// A `mcpheader:"Name"` tag adds "x-mcp-header":"Name" to the property. It must satisfy the
// specification (see [HeaderParams]): the name is an HTTP token, unique ignoring case; the
// property's type is string, integer or boolean; the field is reached from the root through
// struct fields only (not through slices or maps). Violations wrap [ErrInvalidHeader].
//
// Recursive struct types are an error wrapping [ErrRecursiveType]: write such a schema by hand
// with $defs and $ref. Channels, functions, complex numbers and unsafe pointers wrap
// [ErrUnsupportedType]. The same type always gives the same bytes.
func DeriveType(t reflect.Type) ([]byte, error) {
	if t == nil {
		return nil, fmt.Errorf("%w: nil type", ErrNotObject)
	}
	root := t
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if root.Kind() != reflect.Struct && root.Kind() != reflect.Map {
		return nil, fmt.Errorf("%w: %s is of kind %s; tool arguments are a JSON object (use a struct or a map)", ErrNotObject, t, root.Kind())
	}
	d := deriver{active: map[reflect.Type]bool{}, headers: map[string]string{}}
	n, err := d.derive(root, root.String(), true)
	if err != nil {
		return nil, err
	}
	if n.typ != "object" {
		return nil, fmt.Errorf("%w: %s has its own JSON encoding; write its schema by hand", ErrNotObject, t)
	}
	return n.appendJSON(nil), nil
}

// deriver carries the state of one derivation.
type deriver struct {
	active  map[reflect.Type]bool // struct types being derived (to detect recursion)
	headers map[string]string     // lower-cased header name -> Go path of the field using it
}

// derive returns the schema of t. path names the Go location for errors; chain reports whether
// the value is reached from the root through object properties only (so x-mcp-header is allowed).
func (d *deriver) derive(t reflect.Type, path string, chain bool) (*node, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case timeType:
		n := newNode("string")
		n.format = "date-time"
		return n, nil
	case rawMessageType:
		return newNode(""), nil
	case numberType:
		return newNode("number"), nil
	}
	pt := reflect.PointerTo(t)
	switch {
	case t.Implements(jsonMarshaler), t.Implements(jsonUnmarshaler), pt.Implements(jsonUnmarshaler):
		return newNode(""), nil
	case t.Implements(textMarshaler), pt.Implements(textUnmarshaler):
		return newNode("string"), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return newNode("boolean"), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return newNode("integer"), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n := newNode("integer")
		n.minimum = "0"
		return n, nil
	case reflect.Float32, reflect.Float64:
		return newNode("number"), nil
	case reflect.String:
		return newNode("string"), nil
	case reflect.Interface:
		return newNode(""), nil
	case reflect.Slice, reflect.Array:
		e := t.Elem()
		if t.Kind() == reflect.Slice && e.Kind() == reflect.Uint8 &&
			!e.Implements(jsonMarshaler) && !e.Implements(textMarshaler) &&
			!reflect.PointerTo(e).Implements(jsonMarshaler) && !reflect.PointerTo(e).Implements(textMarshaler) {
			n := newNode("string")
			n.contentEncoding = "base64"
			return n, nil
		}
		items, err := d.derive(e, path+"[]", false)
		if err != nil {
			return nil, err
		}
		n := newNode("array")
		n.items = items
		return n, nil
	case reflect.Map:
		k := t.Key()
		switch k.Kind() {
		case reflect.String,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			if !k.Implements(textMarshaler) && !reflect.PointerTo(k).Implements(textUnmarshaler) {
				return nil, fmt.Errorf("%w: %s: map key type %s", ErrUnsupportedType, path, k)
			}
		}
		values, err := d.derive(t.Elem(), path+"[key]", false)
		if err != nil {
			return nil, err
		}
		n := newNode("object")
		n.additional = values
		return n, nil
	case reflect.Struct:
		return d.structNode(t, path, chain)
	default:
		return nil, fmt.Errorf("%w: %s: %s", ErrUnsupportedType, path, t)
	}
}

func (d *deriver) structNode(t reflect.Type, path string, chain bool) (*node, error) {
	if d.active[t] {
		return nil, fmt.Errorf("%w: %s contains %s again", ErrRecursiveType, path, t)
	}
	d.active[t] = true
	defer delete(d.active, t)

	n := newNode("object")
	n.object = true
	for _, f := range jsonFields(t) {
		fpath := path + "." + f.sf.Name
		p, err := d.field(f, fpath, chain)
		if err != nil {
			return nil, err
		}
		n.props = append(n.props, prop{name: f.name, schema: p.schema})
		if p.required {
			n.required = append(n.required, f.name)
		}
	}
	return n, nil
}

type fieldSchema struct {
	schema   *node
	required bool
}

func (d *deriver) field(f jsonField, path string, chain bool) (fieldSchema, error) {
	opts, err := parseOptions(f.sf.Tag.Get(TagOptions))
	if err != nil {
		return fieldSchema{}, fmt.Errorf("%w: %s: %v", ErrInvalidTag, path, err)
	}
	var n *node
	if f.quoted {
		n = newNode("string")
	} else {
		n, err = d.derive(f.sf.Type, path, chain)
		if err != nil {
			return fieldSchema{}, err
		}
	}
	if err := opts.apply(n); err != nil {
		return fieldSchema{}, fmt.Errorf("%w: %s: %v", ErrInvalidTag, path, err)
	}
	n.description = f.sf.Tag.Get(TagDescription)
	if name, ok := f.sf.Tag.Lookup(TagHeader); ok {
		if err := d.header(name, n, path, chain); err != nil {
			return fieldSchema{}, err
		}
		n.header = name
	}
	required := !f.omit
	if opts.required {
		required = true
	} else if opts.optional {
		required = false
	}
	return fieldSchema{schema: n, required: required}, nil
}

// header checks one mcpheader tag.
func (d *deriver) header(name string, n *node, path string, chain bool) error {
	if !chain {
		return fmt.Errorf("%w: %s: only properties reached from the root through object properties can carry a header (not array items or map values)", ErrInvalidHeader, path)
	}
	if err := checkHeaderName(name); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalidHeader, path, err)
	}
	if !headerTypeAllowed[n.typ] {
		typ := n.typ
		if typ == "" {
			typ = "unconstrained"
		}
		return fmt.Errorf("%w: %s: property type is %s; it must be string, integer or boolean", ErrInvalidHeader, path, typ)
	}
	key := strings.ToLower(name)
	if other, ok := d.headers[key]; ok {
		return fmt.Errorf("%w: %s: header name %q is already used by %s (names are compared ignoring case)", ErrInvalidHeader, path, name, other)
	}
	d.headers[key] = path
	return nil
}
