package fastmcp

import "github.com/fastmcp-go/fastmcp/internal/sealstate"

const sealstateMaxKeys = sealstate.MaxKeys
