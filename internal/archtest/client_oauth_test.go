package archtest

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientOAuthDependencies: client/oauth, the client's OAuth provider, may use the client
// (with what the client depends on), the loopback rule, x/oauth2 and go-jose, nothing else
// outside the standard library; of this module it imports only the client and
// internal/loopback (never the server's oauth package or the core); and the client does not
// depend on it, so a program that needs no OAuth does not link it.
func TestClientOAuthDependencies(t *testing.T) {
	base := deps(t, "client")
	for d := range deps(t, "client/oauth") {
		first, _, _ := strings.Cut(d, "/")
		if !strings.Contains(first, ".") || base[d] || d == module+"/client/oauth" || d == module+"/internal/loopback" ||
			strings.HasPrefix(d, "golang.org/x/oauth2") || strings.HasPrefix(d, "github.com/go-jose/go-jose/v4") {
			continue
		}
		t.Errorf("client/oauth depends on %s, which the design does not allow", d)
	}
	out, err := exec.Command("go", "list", "-f", `{{join .Imports " "}}`, module+"/client/oauth").Output()
	require.NoError(t, err)
	for _, imp := range strings.Fields(string(out)) {
		if strings.HasPrefix(imp, module+"/") {
			assert.Contains(t, []string{module + "/client", module + "/internal/loopback"}, imp, "client/oauth imports %s", imp)
		}
	}
	assert.False(t, base[module+"/client/oauth"], "the client depends on client/oauth")
}
