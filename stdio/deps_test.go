package stdio

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDependencies keeps stdio a thin transport over the core: no HTTP server, no other
// transport, and no testing code outside tests.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	denied := map[string]string{
		"testing":                                  "tests only",
		"github.com/valyala/fasthttp":              "stdio has no HTTP",
		"github.com/fastmcp-go/fastmcp/sse":        "another transport's framing",
		"github.com/fastmcp-go/fastmcp/streamable": "another transport",
	}
	deps := strings.Fields(string(out))
	for _, dep := range deps {
		for prefix, why := range denied {
			if dep == prefix || strings.HasPrefix(dep, prefix+"/") {
				t.Errorf("stdio depends on %s: %s", dep, why)
			}
		}
	}
	require.Contains(t, deps, "github.com/fastmcp-go/fastmcp/fastmcp")
	require.Contains(t, deps, "github.com/fastmcp-go/fastmcp/pool")
}
