package stdio

import "github.com/fastmcp-go/fastmcp/fastmcp"

var _ fastmcp.NetworkNamer = (*job)(nil)

// NetworkTransport reports that stdio is a pipe, for a fastmcp.Observer.
func (*job) NetworkTransport() string { return fastmcp.NetworkPipe }
