// Package clientinterop proves the oauth package against real OAuth clients, each running
// its own authorization code flow (PKCE, resource indicator, step-up on 403
// insufficient_scope) against the oauthtest authorization server and a fastmcp endpoint
// behind oauth's gate:
//
//   - the official Go SDK's github.com/modelcontextprotocol/go-sdk/auth handler (always);
//   - the official TypeScript client, @modelcontextprotocol/client 2.4.0, by ts/oauth.mjs,
//     in both eras, when the interop lane's toolchain is installed in .tools/ (make interop)
//     or FASTMCP_TS_CLIENT_DIR names a directory whose node_modules has it.
//
// It is a module of its own so that the main module never depends on the SDK:
//
//	cd oauth/clientinterop && go test ./...
package clientinterop
