package archtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deps lists the packages pkg's non-test build depends on.
func deps(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
	require.NoError(t, err)
	set := map[string]bool{}
	for _, d := range strings.Fields(string(out)) {
		set[d] = true
	}
	return set
}

// TestOAuthDependencies: the oauth package is an integration: it may use the core and
// streamable's gate (with what they depend on) and its JWT library, nothing else outside the
// standard library; and no core package depends on it or on the JWT library.
func TestOAuthDependencies(t *testing.T) {
	base := deps(t, "streamable")
	for d := range deps(t, "oauth") {
		first, _, _ := strings.Cut(d, "/")
		if !strings.Contains(first, ".") || base[d] || d == module+"/oauth" || strings.HasPrefix(d, "github.com/go-jose/go-jose/v4") {
			continue
		}
		t.Errorf("oauth depends on %s, which the design does not allow", d)
	}
	for _, core := range []string{"decode", "pool", "sse", "fastmcp", "streamable", "stdio", "client"} {
		for d := range deps(t, core) {
			assert.False(t, strings.HasPrefix(d, "github.com/go-jose/") || d == module+"/oauth", "%s depends on %s", core, d)
		}
	}
}
