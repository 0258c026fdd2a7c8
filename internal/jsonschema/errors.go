package jsonschema

import (
	"errors"
	"strconv"
	"strings"
)

// Errors returned by [Derive], [DeriveType], [HeaderParams] and [Compile] describe programming
// errors (a Go type or a schema the server registers) and may name Go types, fields and schema
// locations. Errors returned by [Schema.Validate] are [*ValidationError] values whose message is
// safe to show to a client.
var (
	// ErrNotObject is returned by [Derive] when the root type does not describe a JSON object (a
	// struct or a map with string-like keys), as MCP requires for a tool's inputSchema.
	ErrNotObject = errors.New("jsonschema: root type is not an object")
	// ErrUnsupportedType is returned by [Derive] for a type with no JSON form (channel, function,
	// complex number, unsafe pointer, map with unsupported keys).
	ErrUnsupportedType = errors.New("jsonschema: unsupported Go type")
	// ErrRecursiveType is returned by [Derive] when a struct type contains itself (directly or
	// through pointers, slices or maps). Write the schema by hand, with $defs and $ref.
	ErrRecursiveType = errors.New("jsonschema: recursive Go type")
	// ErrInvalidTag is returned by [Derive] for a malformed `jsonschema` struct tag, or an option
	// that does not apply to the field's type.
	ErrInvalidTag = errors.New("jsonschema: invalid struct tag")
	// ErrInvalidHeader is returned by [Derive] and [HeaderParams] for an x-mcp-header annotation
	// that breaks the rules of the 2026-07-28 specification (see [HeaderParams]).
	ErrInvalidHeader = errors.New("jsonschema: invalid x-mcp-header annotation")
	// ErrInvalidSchema is returned by [Compile] and [HeaderParams] for bytes that are not JSON or
	// not a valid JSON Schema.
	ErrInvalidSchema = errors.New("jsonschema: invalid schema")
	// ErrExternalRef is returned by [Compile] when the schema references a resource outside the
	// document ($ref, $dynamicRef or $schema naming an http, file or any other URL that is not
	// defined in the document itself or one of the built-in meta-schemas).
	ErrExternalRef = errors.New("jsonschema: reference to an external resource")
	// ErrLimitExceeded is matched (with errors.Is) by every [*LimitError].
	ErrLimitExceeded = errors.New("jsonschema: limit exceeded")
	// ErrInvalidInstance is matched (with errors.Is) by every [*ValidationError].
	ErrInvalidInstance = errors.New("jsonschema: instance does not match the schema")
)

// LimitError reports a schema refused by [Compile] or [HeaderParams] because it exceeds a limit.
// It matches [ErrLimitExceeded].
type LimitError struct {
	What  string // "schema size in bytes" or "schema nesting depth"
	Limit int64  // the limit that was exceeded
}

func (e *LimitError) Error() string {
	return "jsonschema: " + e.What + " exceeds the limit of " + strconv.FormatInt(e.Limit, 10)
}

// Is reports whether target is [ErrLimitExceeded].
func (e *LimitError) Is(target error) bool { return target == ErrLimitExceeded }

// ValidationError reports an instance that does not match a compiled [Schema]. Its message is
// concise and safe to return to a client, for example in an isError tool result:
//
//	arguments: /text: expected string, got number
//
// It names the location (a JSON Pointer into the instance) and the rule, never the instance value.
// Schema-side facts (property names, enum values, bounds, patterns) may appear, since the client
// can read them from the schema anyway; instance-side object keys appear in locations and in
// unexpected-property messages, quoted and truncated. It matches [ErrInvalidInstance].
type ValidationError struct {
	// Location is the JSON Pointer (RFC 6901) of the failing value within the instance; "" is the
	// instance itself. Tokens longer than 64 bytes are truncated and control characters replaced.
	Location string
	// Reason describes the rule that failed, for example "expected string, got number".
	Reason string
	// More counts further failures that the message does not describe.
	More int
}

func (e *ValidationError) Error() string {
	var sb strings.Builder
	sb.WriteString("arguments: ")
	if e.Location != "" {
		sb.WriteString(e.Location)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Reason)
	if e.More > 0 {
		sb.WriteString(" (and ")
		sb.WriteString(strconv.Itoa(e.More))
		if e.More == 1 {
			sb.WriteString(" more error)")
		} else {
			sb.WriteString(" more errors)")
		}
	}
	return sb.String()
}

// Is reports whether target is [ErrInvalidInstance].
func (e *ValidationError) Is(target error) bool { return target == ErrInvalidInstance }
