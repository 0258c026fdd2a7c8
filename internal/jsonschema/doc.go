// Package jsonschema derives, checks and validates the JSON Schemas of MCP tools.
//
// The MCP core uses it for tools: [Derive] turns a typed tool's Go argument type into its
// inputSchema; [HeaderParams] extracts the x-mcp-header annotations of any input schema (derived
// or given as raw JSON) for the Streamable HTTP transport, and [CheckObjectRoot] checks that a raw
// input schema has "type":"object" at its root; [Compile] and [Schema.Validate] check the
// arguments of every tools/call against the schema.
//
// # Example
//
//	type Args struct {
//		Region string `json:"region" description:"Cloud region" mcpheader:"Region"`
//		Query  string `json:"query" jsonschema:"minLength=1"`
//		Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100"`
//	}
//
//	raw, err := jsonschema.Derive[Args]()
//	// {"type":"object","properties":{"region":{"type":"string","description":"Cloud region",
//	// "x-mcp-header":"Region"},"query":{"type":"string","minLength":1},"limit":{"type":"integer",
//	// "minimum":1,"maximum":100}},"required":["region","query"]}
//	params, err := jsonschema.HeaderParams(raw) // [{Region [region] string}]
//	schema, err := jsonschema.Compile(raw)
//	err = schema.Validate([]byte(`{"region":"eu","query":7}`))
//	// arguments: /query: expected string, got number
//
// # Validation
//
// [Compile] uses github.com/santhosh-tekuri/jsonschema/v6 with draft 2020-12 as the default
// dialect. It never loads anything: only in-document references and the built-in meta-schemas
// resolve, and any other reference fails with [ErrExternalRef]. Formats and content keywords are
// annotations, not assertions (a schema that selects draft-07 or older through $schema gets the
// format assertions those drafts define); patterns use Go's RE2 engine; values are never coerced
// and defaults never applied. Instances are decoded with numbers kept exact ([encoding/json.Number]),
// and the cost of a number is bounded by its literal's length: a number far larger, smaller or
// more precise than the schema's own numbers reaches the validator as a short stand-in that every
// keyword judges as it judges the number (1e999999 is an integer above any maximum of 100), so
// 1e999999 costs microseconds, not the ~60 ms of computing its exact value (see numbers.go).
// [Schema.ValidateContext] stops preparing a large instance when its context ends.
//
// Errors from [Schema.Validate] are [*ValidationError] values with a concise message that names
// the location and the rule but never the instance's value, for an isError tool result:
// "arguments: /text: expected string, got number".
//
// Flat object schemas, the common case, take a fast path that checks the raw bytes without
// allocating (see fastpath.go); other schemas and all failures use the full validator.
//
// # Limits
//
//   - [MaxSchemaBytes] (64 KiB): a larger schema is refused by [Compile] and [HeaderParams] with
//     a [*LimitError] ("jsonschema: schema size in bytes exceeds the limit of 65536").
//   - [MaxSchemaDepth] (64): a schema whose JSON objects and arrays nest deeper is refused with a
//     [*LimitError] ("jsonschema: schema nesting depth exceeds the limit of 64").
//   - Numbers in a schema: at most 100 significant digits, a magnitude below 1e400 and no digit
//     finer than 1e-400; [Compile] refuses others (an error wrapping [ErrInvalidSchema]).
//   - Numbers in an instance are not limited, except inside arrays under a schema with
//     uniqueItems (which compares instance numbers with each other, so no stand-in serves) and,
//     for integers of more than 100 significant digits above every constant, under multipleOf:
//     there a number outside the range above is refused with a [*ValidationError] that quotes
//     it ("arguments: /2: number 1e999999 is outside the range this schema can check (…)").
//
// These bound the document, not the cost of validating against it: nested composition
// (anyOf/oneOf/allOf) and $ref can make validation expensive. Compile schemas written by the
// server's developers, not schemas supplied by clients. Instances are bounded by the transport's
// message limits before they get here.
//
// # Derived schemas
//
// [DeriveType] documents the Go-to-schema mapping and the struct tags: json (names, omitempty,
// omitzero, "-", ",string"), description, jsonschema (enum, minimum, maximum, minLength,
// maxLength, minItems, maxItems, format, required, optional) and mcpheader. Recursive types are
// an error ([ErrRecursiveType]); no $defs are generated.
//
// All functions are safe for concurrent use, and a compiled [Schema] may be shared by any number
// of goroutines.
package jsonschema
