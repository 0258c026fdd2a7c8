package main

import (
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// newNetHTTP serves srv with net/http and the streamable package's net/http adapter.
//
// The adapter (streamable.NewHandler) is not in this build yet: --stack nethttp is a usage
// error (exit status 2) until it is, which the interop lane reads as "skip".
func newNetHTTP(*fastmcp.Server, streamable.Config) (endpoint, error) {
	return nil, usageError("--stack nethttp: the net/http adapter (streamable.NewHandler) is not available in this build yet")
}
