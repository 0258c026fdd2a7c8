package stdio

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// requireLegacyValid checks that line, written on a connection that negotiated revision rev,
// matches definition def of that revision's schema: a *Result against the result and the
// whole line against the revision's result response, an error against its error response,
// a request or notification as a whole and against its JSON-RPC envelope.
func requireLegacyValid(t testing.TB, rev, def, line string) {
	t.Helper()
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(line), &env), "line %q", line)
	check := func(def string, b []byte) {
		t.Helper()
		require.NoError(t, wireschema.Validate(rev, def, b), "%s %s:\n%s", rev, def, b)
	}
	resultResponse, errorResponse := "JSONRPCResultResponse", "JSONRPCErrorResponse"
	if rev == "2025-06-18" {
		resultResponse, errorResponse = "JSONRPCResponse", "JSONRPCError"
	}
	switch {
	case def == "error":
		require.Contains(t, env, "error", "line %q", line)
		check(errorResponse, []byte(line))
	case strings.HasSuffix(def, "Result"):
		require.Contains(t, env, "result", "line %q", line)
		check(def, env["result"])
		check(resultResponse, []byte(line))
	case strings.HasSuffix(def, "Request"):
		check(def, []byte(line))
		check("JSONRPCRequest", []byte(line))
	default:
		check(def, []byte(line))
		check("JSONRPCNotification", []byte(line))
	}
}
