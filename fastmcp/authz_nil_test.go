package fastmcp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A policy returning a typed-nil *Error is garbage: -32603, and the process keeps serving.
func TestAuthorizerTypedNilError(t *testing.T) {
	s := newTestServer(t, &Config{Authorizer: AuthorizerFunc(func(context.Context, Phase, string, Component) error {
		var e *Error
		return e
	})})
	AddTool(s, Tool{Name: "t", Description: "d"}, func(context.Context, *Request, struct{}) (ToolResult, error) {
		return ToolResult{Text: "ok"}, nil
	})
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Authorization policy failed"}}`
	assert.Equal(t, want, dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta+`}}`))
	assert.Equal(t, want, dispatch(t, s, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"t"}}`))
}
