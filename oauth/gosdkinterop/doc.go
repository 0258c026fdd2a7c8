// Package gosdkinterop proves the oauth package against a real OAuth client: the official Go
// SDK's (github.com/modelcontextprotocol/go-sdk/auth) authorization code flow, run against
// the oauthtest authorization server and a fastmcp endpoint behind oauth's gate. It is a
// module of its own so that the main module never depends on the SDK; its test is the whole
// of it:
//
//	cd oauth/gosdkinterop && go test ./...
package gosdkinterop
