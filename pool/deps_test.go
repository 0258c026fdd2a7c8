package pool

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDependencies keeps pool embeddable: the standard library and ants
// (with what ants needs) only; in particular no other fastmcp package.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err)
	for _, dep := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(dep, "/")
		switch {
		case !strings.Contains(first, "."): // standard library
			require.NotEqual(t, "testing", dep, "pool must not import testing outside tests")
		case strings.HasPrefix(dep, "github.com/panjf2000/ants/v2"):
		case strings.HasPrefix(dep, "golang.org/x/sync/"): // ants' multi-pool uses errgroup
		case dep == "github.com/fastmcp-go/fastmcp/pool":
		default:
			t.Errorf("pool depends on %s: only the standard library and ants are allowed", dep)
		}
	}
}
