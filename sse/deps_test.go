package sse

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDependencies enforces that sse imports the standard library only: it
// is shared by every transport and must know nothing of HTTP servers or MCP.
func TestDependencies(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not found:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps",
		"-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, []string{"github.com/fastmcp-go/fastmcp/sse"}, strings.Fields(string(out)),
		"sse may import the standard library only")
}
