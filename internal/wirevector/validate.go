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

// Validate checks that msg is one line of JSON matching definition def of the official
// 2026-07-28 schema (see the package documentation for which part is validated).
func Validate(t testing.TB, where, def string, msg []byte) {
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
		if err := wireschema.Validate(wireschema.Latest, def, b); err != nil {
			t.Fatalf("%s: does not match %s: %v\n%s", where, def, err, b)
		}
	}
	whole := msg
	if string(env["id"]) == "null" && env["error"] != nil {
		delete(env, "id")
		whole, _ = json.Marshal(env)
	}
	switch {
	case errorObjectDefs[def]:
		require.Contains(t, env, "error", "%s: %s wants an error response", where, def)
		check(def, env["error"])
		check("JSONRPCErrorResponse", whole)
	case strings.HasSuffix(def, "Result"):
		require.Contains(t, env, "result", "%s: %s wants a result response", where, def)
		check(def, env["result"])
		check("JSONRPCResultResponse", whole)
	default:
		check(def, whole)
	}
}
