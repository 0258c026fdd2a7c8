package archtest

import (
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clientFiles returns the client package's non-test Go files and their module imports.
func clientFiles(t *testing.T) map[string][]string {
	out, err := exec.Command("go", "list", "-f", `{{.Dir}} {{join .GoFiles " "}}`, module+"/client").Output()
	require.NoError(t, err)
	fields := strings.Fields(string(out))
	require.NotEmpty(t, fields)
	files := map[string][]string{}
	for _, name := range fields[1:] {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(fields[0], name), nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			files[name] = append(files[name], path)
		}
	}
	return files
}

// TestClientReachesNeitherCoreNorExecutor: the client's non-test build depends on no package
// of the server core (fastmcp and its subpackages) and not on the executor (pool, ants), so a
// program that only dials servers links none of them; the in-process transport lives in
// client/inprocess.
func TestClientReachesNeitherCoreNorExecutor(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"/client").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, module+"/decode", "the dependencies are listed")
	for _, dep := range deps {
		for _, banned := range []string{module + "/fastmcp", module + "/pool", "github.com/panjf2000/ants"} {
			assert.False(t, dep == banned || strings.HasPrefix(dep, banned+"/"), "client depends on %s", dep)
		}
	}
}

// TestClientStartsNoGoroutines: importing the client starts no goroutine (the executor's
// pool, when the client reached it, started two at import), measured in a program that
// imports only client.
func TestClientStartsNoGoroutines(t *testing.T) {
	out, err := exec.Command("go", "run", "./testdata/clientonly").CombinedOutput()
	require.NoError(t, err, "%s", out)
	count, stacks, _ := strings.Cut(string(out), "\n")
	assert.Equal(t, "1", count, "goroutines running when main starts:\n%s", stacks)
}

// TestClientImportsNoNetHTTP: the client is built on fasthttp, never net/http.
func TestClientImportsNoNetHTTP(t *testing.T) {
	for name, imports := range clientFiles(t) {
		for _, p := range imports {
			assert.False(t, p == "net/http" || strings.HasPrefix(p, "net/http/"), "%s imports %s", name, p)
		}
	}
}
