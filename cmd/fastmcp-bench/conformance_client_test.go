package main

import (
	"bytes"
	"context"
	"encoding/json"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestElicitDefaults(t *testing.T) {
	// The requestedSchema of elicitation-sep1034-client-defaults, verbatim.
	params := `{"message":"Test client default value handling - please accept with defaults","requestedSchema":{"type":"object","properties":{"name":{"type":"string","description":"User name","default":"John Doe"},"age":{"type":"integer","description":"User age","default":30},"score":{"type":"number","description":"User score","default":95.5},"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},"verified":{"type":"boolean","description":"Verification status","default":true}},"required":[]}}`
	got, err := elicitDefaults(context.Background(), json.RawMessage(params))
	require.NoError(t, err)
	assert.Equal(t, `{"action":"accept","content":{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}}`, string(got))

	got, err = elicitDefaults(context.Background(), json.RawMessage(`{"message":"Please confirm to continue","requestedSchema":{"type":"object","properties":{"confirmed":{"type":"boolean","description":"Confirm?"}}}}`))
	require.NoError(t, err)
	assert.Equal(t, `{"action":"accept","content":{}}`, string(got))

	_, err = elicitDefaults(context.Background(), json.RawMessage(`[]`))
	assert.ErrorContains(t, err, "elicitation/create params:")
}

func TestReadConformanceContext(t *testing.T) {
	t.Setenv(envContext, `{"name":"http-custom-headers","toolCalls":[{"name":"test_custom_headers_null","arguments":{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}}]}`)
	cc, err := readConformanceContext()
	require.NoError(t, err)
	assert.Equal(t, "http-custom-headers", cc.Name)
	require.Len(t, cc.ToolCalls, 1)
	assert.Equal(t, "test_custom_headers_null", cc.ToolCalls[0].Name)
	assert.JSONEq(t, `{"region":"us-east1","priority":1,"verbose":null,"query":"SELECT 1"}`, string(cc.ToolCalls[0].Arguments))

	t.Setenv(envContext, "")
	cc, err = readConformanceContext()
	require.NoError(t, err)
	assert.Empty(t, cc.ToolCalls)

	t.Setenv(envContext, "{")
	_, err = readConformanceContext()
	assert.ErrorContains(t, err, envContext+":")
}

func TestConformanceClientUsage(t *testing.T) {
	var errOut bytes.Buffer
	assert.Equal(t, 2, runConformanceClient(context.Background(), nil, &errOut))
	assert.Equal(t, "Usage: MCP_CONFORMANCE_SCENARIO=NAME fastmcp-bench conformance-client URL\n", errOut.String())

	t.Setenv(envScenario, "auth/wif-jwt-bearer")
	errOut.Reset()
	assert.Equal(t, 2, runConformanceClient(context.Background(), []string{"http://127.0.0.1:1/mcp"}, &errOut))
	assert.Equal(t, `conformance-client: unknown MCP_CONFORMANCE_SCENARIO "auth/wif-jwt-bearer" (known: `+
		`auth/authorization-server-migration, auth/basic-cimd, auth/client-credentials-basic, auth/client-credentials-jwt, `+
		`auth/dpop, auth/dpop-nonce, auth/iss-normalized, auth/iss-not-advertised, auth/iss-supported, auth/iss-supported-missing, `+
		`auth/iss-unexpected, auth/iss-wrong-issuer, auth/metadata-default, auth/metadata-issuer-mismatch, auth/metadata-var1, `+
		`auth/metadata-var2, auth/metadata-var3, auth/offline-access-not-supported, auth/offline-access-scope, auth/pre-registration, `+
		`auth/resource-mismatch, auth/scope-from-scopes-supported, auth/scope-from-www-authenticate, auth/scope-omitted-when-undefined, `+
		`auth/scope-retry-limit, auth/scope-step-up, auth/token-endpoint-auth-basic, auth/token-endpoint-auth-none, auth/token-endpoint-auth-post, `+
		`elicitation-sep1034-client-defaults, http-custom-headers, http-invalid-tool-headers, http-standard-headers, initialize, json-schema-ref-no-deref, request-metadata, sep-2322-client-request-state, sse-retry, tools_call)`+"\n", errOut.String())

	// An auth scenario whose context cannot configure the provider is a usage error too.
	t.Setenv(envScenario, "auth/client-credentials-jwt")
	t.Setenv(envContext, `{"name":"auth/client-credentials-jwt","client_id":"c","private_key_pem":"not PEM"}`)
	errOut.Reset()
	assert.Equal(t, 2, runConformanceClient(context.Background(), []string{"http://127.0.0.1:1/mcp"}, &errOut))
	assert.Equal(t, "conformance-client auth/client-credentials-jwt: private_key_pem: no PEM block\n", errOut.String())

	t.Setenv(envScenario, "http-custom-headers")
	t.Setenv(envContext, "{")
	errOut.Reset()
	assert.Equal(t, 2, runConformanceClient(context.Background(), []string{"http://127.0.0.1:1/mcp"}, &errOut))
	assert.Contains(t, errOut.String(), "conformance-client: MCP_CONFORMANCE_CONTEXT:")
}

// TestConformanceClientAgainstOurServer drives the scenarios that need no scenario-specific
// tools against the demo and conformance catalogs, in both eras: the exit status and the
// step that failed are what the suite's log shows.
func TestConformanceClientAgainstOurServer(t *testing.T) {
	url := startCallServer(t)
	for _, tc := range []struct {
		scenario, version string
		code              int
		stderr            string
	}{
		{"json-schema-ref-no-deref", "2026-07-28", 0, ""},
		{"initialize", "2025-11-25", 0, ""},
		{"request-metadata", "2026-07-28", 0, ""},
		{"http-standard-headers", "2025-11-25", 1, "conformance-client http-standard-headers: tools/call "}, // calls every tool without arguments
		{"tools_call", "2026-07-28", 1, "conformance-client tools_call: tools/call add_numbers: mcp error "},
		{"http-custom-headers", "2026-07-28", 1, "conformance-client http-custom-headers: MCP_CONFORMANCE_CONTEXT lists no toolCalls\n"},
	} {
		t.Setenv(envScenario, tc.scenario)
		t.Setenv(envVersion, tc.version)
		t.Setenv(envContext, "")
		var errOut bytes.Buffer
		assert.Equal(t, tc.code, runConformanceClient(context.Background(), []string{url}, &errOut), "%s %s: %s", tc.scenario, tc.version, errOut.String())
		if tc.stderr == "" {
			assert.Empty(t, errOut.String())
		} else {
			assert.Contains(t, errOut.String(), tc.stderr, tc.scenario)
		}
	}
}

// TestConformanceClientImportsOnlyTheClient keeps the client under test honest: the suite
// scores the client package and its OAuth provider, so conformance_client.go and
// conformance_auth.go may use nothing else of this module.
func TestConformanceClientImportsOnlyTheClient(t *testing.T) {
	for _, name := range []string{"conformance_client.go", "conformance_auth.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.Contains(path, ".") { // not the standard library
				assert.Contains(t, []string{"github.com/fastmcp-go/fastmcp/client", "github.com/fastmcp-go/fastmcp/client/oauth"}, path, name)
			}
		}
	}
}
