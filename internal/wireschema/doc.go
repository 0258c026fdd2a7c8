// Package wireschema validates emitted MCP messages against the official MCP JSON schemas.
//
// It is a test helper: every package validates the JSON it puts on the wire against the concrete
// schema definition the message must match (for example CallToolResultResponse, InputRequiredResult
// or HeaderMismatchError), never against the schema's root union, which accepts too much.
//
// # Schemas and examples
//
// The official schema files for revisions 2026-07-28, 2025-11-25 (JSON Schema 2020-12, definitions
// under $defs) and 2025-06-18 (draft-07, definitions under definitions) and the 2026-07-28 example
// wire vectors are embedded (see schemas/README.md and examples/README.md for provenance), so tests
// run from a clean clone without reading anything outside the module.
//
// # Usage
//
//	func TestCallToolResult(t *testing.T) {
//		msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}`)
//		wireschema.RequireValid(t, "CallToolResultResponse", msg)
//	}
//
// [Validate] takes an explicit revision; [Examples] returns the official example vectors for a
// definition.
//
// # Validation rules
//
// Validation uses github.com/santhosh-tekuri/jsonschema/v6 with the draft named by each file's
// $schema. Formats and content keywords are annotations only (not asserted), nothing is coerced or
// defaulted, and no reference is ever loaded from the network or the file system: every $ref in the
// official files is in-document. Compiled definitions are cached per revision; all functions are safe
// for concurrent use.
package wireschema
