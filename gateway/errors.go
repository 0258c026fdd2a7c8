package gateway

import (
	"errors"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

var (
	// ErrInvalidConfig: New refused the configuration.
	ErrInvalidConfig = errors.New("gateway: invalid configuration")
	// ErrCatalogTooLarge: a backend listed more than Config.MaxCatalogEntries entries.
	ErrCatalogTooLarge = errors.New("gateway: backend catalog exceeds MaxCatalogEntries")
	// ErrClosed: the Gateway was closed.
	ErrClosed = errors.New("gateway: closed")
)

// CodeBackendUnavailable is the JSON-RPC code of a request whose backend is down or whose
// connection broke during the call: -32603, message `Backend "NAME" is unavailable`,
// data {"backend":"NAME"}. Why it is down is logged, never sent: it would tell the caller
// the backend's address.
const CodeBackendUnavailable = fastmcp.CodeInternalError

// unavailable is the error a caller of a down backend gets.
func unavailable(name string) *fastmcp.Error {
	return fastmcp.NewError(CodeBackendUnavailable, `Backend "`+name+`" is unavailable`, []byte(`{"backend":"`+name+`"}`))
}
