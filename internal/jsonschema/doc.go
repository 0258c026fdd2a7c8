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
// and defaults never applied. Instances are decoded with numbers kept exact ([encoding/json.Number]).
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
