package wirevector

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// errorObjectDefs are the schema definitions of a JSON-RPC error object (not a response).
var errorObjectDefs = map[string]bool{
	"ParseError": true, "InvalidRequestError": true, "MethodNotFoundError": true,
	"InvalidParamsError": true, "InternalError": true,
}

// errorCodes are the codes the error object definitions pin, for the revisions that have no
// such definitions (2025-11-25, 2025-06-18).
var errorCodes = map[string]float64{
	"ParseError": -32700, "InvalidRequestError": -32600, "MethodNotFoundError": -32601,
	"InvalidParamsError": -32602, "InternalError": -32603,
}

// Validate checks that msg is one line of JSON matching definition def of the official
// 2026-07-28 schema (see the package documentation for which part is validated).
func Validate(t testing.TB, where, def string, msg []byte) {
	t.Helper()
	ValidateRevision(t, where, wireschema.Latest, def, msg)
}

// ValidateRevision is Validate against revision rev. The initialize-era revisions name their
// responses otherwise (2025-06-18: JSONRPCResponse and JSONRPCError) and have no error object
// definitions: there an error object definition checks the code it stands for and the whole
// message against the revision's error response.
func ValidateRevision(t testing.TB, where, rev, def string, msg []byte) {
	t.Helper()
	if bytes.ContainsAny(msg, "\r\n") {
		t.Fatalf("%s: the message is not one line:\n%s", where, msg)
	}
	var env map[string]json.RawMessage
	if err := json.Unmarshal(msg, &env); err != nil {
		t.Fatalf("%s: the message is not a JSON object: %v\n%s", where, err, msg)
	}
	check := func(def string, b []byte) {
		t.Helper()
		if err := wireschema.Validate(rev, def, b); err != nil {
			t.Fatalf("%s: does not match %s %s: %v\n%s", where, rev, def, err, b)
		}
	}
	resultResponse, errorResponse := "JSONRPCResultResponse", "JSONRPCErrorResponse"
	if rev == "2025-06-18" {
		resultResponse, errorResponse = "JSONRPCResponse", "JSONRPCError"
	}
	whole := msg
	if string(env["id"]) == "null" && env["error"] != nil {
		delete(env, "id")
		whole, _ = json.Marshal(env)
	}
	switch {
	case errorObjectDefs[def] && rev != wireschema.Latest:
		var e struct{ Code float64 }
		require.Contains(t, env, "error", "%s: %s wants an error response", where, def)
		require.NoError(t, json.Unmarshal(env["error"], &e), where)
		require.Equal(t, errorCodes[def], e.Code, "%s: the code of %s", where, def)
		check(errorResponse, whole)
	case errorObjectDefs[def]:
		require.Contains(t, env, "error", "%s: %s wants an error response", where, def)
		check(def, env["error"])
		check(errorResponse, whole)
	case strings.HasSuffix(def, "Result"):
		require.Contains(t, env, "result", "%s: %s wants a result response", where, def)
		check(def, env["result"])
		check(resultResponse, whole)
	default:
		check(def, whole)
	}
}
