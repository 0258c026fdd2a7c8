package main

import (
	"context"
	"encoding/json"
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
