// Package corelink carries the transport-facing side of a *fastmcp.Server from package
// fastmcp, which makes it, to package fastmcp/transport, which offers it to transport
// authors: the user's [fastmcp.Server] shows only the user's API.
package corelink

// HostSide, set by package fastmcp when it initializes, returns the transport-facing side
// of server, a *fastmcp.Server. Package transport asserts the result to its own interface
// once per transport. It is typed any because this package sits below both.
var HostSide func(server any) any
