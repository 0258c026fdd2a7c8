package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Limits applied by [Compile] and [HeaderParams] to a schema before it is decoded.
const (
	// MaxSchemaBytes bounds the size of one schema document (64 KiB).
	MaxSchemaBytes = 64 << 10
	// MaxSchemaDepth bounds the nesting of JSON objects and arrays in one schema document. Each
	// level of nested object properties uses two ({"properties":{"name":{...}}}).
	MaxSchemaDepth = 64
)

// schemaURL is the name the compiled document is registered under. It is never loaded; relative
// references resolve against it to mem: URLs, which the loader refuses.
const schemaURL = "mem:///schema.json"

// Schema is a compiled JSON Schema. It is safe for concurrent use by multiple goroutines.
type Schema struct {
	sch     *jsonschema.Schema
	flat    *flatSchema  // nil unless the schema is a flat object schema (see fastpath.go)
	numbers numberBounds // what the document's numbers need of instance numbers (numbers.go)
}

// Compile compiles a JSON Schema given as JSON. A schema without $schema is read as draft
// 2020-12; a $schema naming another draft the validator knows (draft-04, -06, -07, 2019-09) selects
// that draft.
//
// Compile refuses, with an error wrapping [ErrExternalRef], any schema that references a
// resource outside the document: only in-document references ("#/$defs/x", "#anchor", and
// subschemas with their own $id) and the built-in meta-schemas resolve; nothing is loaded from the
// network or the file system. A document that is not JSON, or not a valid schema (checked against
// its draft's meta-schema, including invalid regular expressions), wraps [ErrInvalidSchema]. A
// document larger than [MaxSchemaBytes] or nested deeper than [MaxSchemaDepth] is a
// [*LimitError]. A number anywhere in the document must have at most 100 significant digits,
// a magnitude below 10^400 and no digit finer than 10^-400 (1e400 and 1e-401 are refused),
// else the error wraps [ErrInvalidSchema]: the schema's numbers set the cost of validating
// instance numbers.
//
// The compiled schema validates with these rules: formats and content keywords (format,
// contentEncoding, contentMediaType) are annotations, not assertions, as drafts 2020-12 and
// 2019-09 specify by default (a schema that selects draft-07 or older gets the format assertions
// of its draft; content keywords are never asserted); patterns use Go's regexp package (RE2: linear time, no backtracking, and no
// lookaround, so such patterns fail to compile); nothing is coerced and no default is applied.
//
// Validation cost: the validator evaluates every applicable keyword, and anyOf/oneOf/allOf,
// if/then/else and not evaluate each subschema against the value, so composition nested inside
// composition multiplies the work, and $ref lets a small document reach the same subschema
// through many paths. The validator stops reference cycles that do not consume the instance. The
// size and depth limits bound the document, not this product: compile only schemas written by the
// server's developers, never schemas supplied by clients.
func Compile(schema []byte) (*Schema, error) {
	if err := checkSchemaBytes(schema); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	numbers, at, ok := newNumberBounds(doc)
	if !ok {
		return nil, fmt.Errorf("%w: the number at %s is outside the supported range (at most %d significant digits, a magnitude below 1e%d, no digit finer than 1e-%d)", ErrInvalidSchema, at, maxExactDigits, maxExactExponent, maxExactExponent)
	}
	loader := &refuseLoader{}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(loader)
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		if loader.refused != "" {
			return nil, fmt.Errorf("%w: %s", ErrExternalRef, loader.refused)
		}
		return nil, fmt.Errorf("%w: %v", ErrInvalidSchema, err)
	}
	s := &Schema{sch: sch, numbers: numbers}
	if !numbers.multipleOf && !numbers.unique { // (flat schemas have neither keyword)
		s.flat = newFlatSchema(doc)
	}
	return s, nil
}

// refuseLoader is the compiler's URL loader: it refuses every URL, and remembers the first.
type refuseLoader struct {
	refused string
}

func (l *refuseLoader) Load(url string) (any, error) {
	if l.refused == "" {
		l.refused = url
	}
	return nil, ErrExternalRef
}

// checkSchemaBytes applies the size and depth limits, and checks that schema is JSON.
func checkSchemaBytes(schema []byte) error {
	if len(schema) > MaxSchemaBytes {
		return &LimitError{What: "schema size in bytes", Limit: MaxSchemaBytes}
	}
	if !json.Valid(schema) {
		return fmt.Errorf("%w: not valid JSON", ErrInvalidSchema)
	}
	if jsonDepth(schema) > MaxSchemaDepth {
		return &LimitError{What: "schema nesting depth", Limit: MaxSchemaDepth}
	}
	return nil
}

// jsonDepth returns the deepest nesting of objects and arrays in b, which must be valid JSON.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = decode.StringEnd(b, i) - 1
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// CheckObjectRoot reports whether schema, a tool's input schema as JSON, is an object whose "type"
// is exactly "object", as MCP requires (tool arguments are always a JSON object). Otherwise the
// error wraps [ErrNotObject] ([ErrInvalidSchema] if schema is not a JSON object at all). Schemas
// from [Derive] always pass.
func CheckObjectRoot(schema []byte) error {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(schema, &root); err != nil || root == nil {
		return fmt.Errorf("%w: the schema is not a JSON object", ErrInvalidSchema)
	}
	var typ string
	if json.Unmarshal(root["type"], &typ) != nil || typ != "object" {
		return fmt.Errorf(`%w: the root schema must have "type": "object"`, ErrNotObject)
	}
	return nil
}
