package clientinterop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/oauth/oauthtest"
)

// tsToolchain finds node and a node_modules holding the official TypeScript client: the
// interop lane's pinned .tools/ (interop/run.sh installs it), or $FASTMCP_TS_CLIENT_DIR (a
// directory whose node_modules has @modelcontextprotocol/client 2.4.0).
func tsToolchain(t *testing.T) (node, modules string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, dir := range []string{os.Getenv("FASTMCP_TS_CLIENT_DIR"), filepath.Join(root, ".tools")} {
		if dir == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "client", "package.json")); err == nil {
			modules = filepath.Join(dir, "node_modules")
			break
		}
	}
	if modules == "" {
		t.Skip("the official TypeScript client is not installed: interop/run.sh (make interop) installs it into .tools/, or set FASTMCP_TS_CLIENT_DIR")
	}
	node = filepath.Join(modules, "node", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		node, err = exec.LookPath("node")
		require.NoError(t, err, "node is needed beside the client")
	}
	return node, modules
}

// TestTypeScriptClientOAuth: the official TypeScript client, given only the endpoint URL,
// authorizes (401, metadata discovery, authorization code with PKCE and our resource),
// calls a tool, and steps up on the 403 of a tool that needs more scope; in the
// initialize era too, where the 403 comes after the body (ResourceServer.StepUp).
func TestTypeScriptClientOAuth(t *testing.T) {
	node, modules := tsToolchain(t)
	dir := t.TempDir()
	script, err := os.ReadFile("ts/oauth.mjs")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "oauth.mjs"), script, 0o644))
	require.NoError(t, os.Symlink(modules, filepath.Join(dir, "node_modules"))) // ESM resolves from the script's directory

	type seen struct {
		Era, Whoami, Write, Error string
		Scopes                    []string
	}
	run := func(t *testing.T, mode string) seen {
		iss, err := oauthtest.NewIssuer()
		require.NoError(t, err)
		defer iss.Close()
		resource := endpoint(t, iss)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, node, filepath.Join(dir, "oauth.mjs"), resource, mode).Output()
		var s seen
		require.NoError(t, json.Unmarshal(out, &s), "output %q, err %v", out, err)
		require.NoError(t, err, "client error: %s", s.Error)
		return s
	}
	t.Run("2026-07-28", func(t *testing.T) {
		s := run(t, "pin")
		assert.Equal(t, seen{Era: "modern", Whoami: "alice [mcp:tools]", Write: "alice [mcp:tools files:write]",
			Scopes: []string{"mcp:tools", "mcp:tools files:write"}}, s)
	})
	t.Run("2025-11-25", func(t *testing.T) {
		// An initialize-era request's Mcp-Name is not read (nor checked against the body), so
		// the gate cannot tell the tool before the body: the policy refuses at the component
		// boundary, and ResourceServer.StepUp answers that refusal with the same 403.
		s := run(t, "legacy")
		assert.Equal(t, seen{Era: "legacy", Whoami: "alice [mcp:tools]", Write: "alice [mcp:tools files:write]",
			Scopes: []string{"mcp:tools", "mcp:tools files:write"}}, s)
	})
}
