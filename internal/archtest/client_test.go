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

// TestClientCoreOnlyInDirect: the client reaches the server core only through client.Direct,
// which lives in its own files, so the wire client stays independent of the core.
func TestClientCoreOnlyInDirect(t *testing.T) {
	for name, imports := range clientFiles(t) {
		for _, p := range imports {
			if !strings.HasPrefix(p, module+"/") || p == module+"/decode" {
				continue
			}
			assert.True(t, strings.HasPrefix(name, "direct"), "%s imports %s; only direct*.go may import the server core", name, p)
		}
	}
}

// TestClientImportsNoNetHTTP: the client is built on fasthttp, never net/http.
func TestClientImportsNoNetHTTP(t *testing.T) {
	for name, imports := range clientFiles(t) {
		for _, p := range imports {
			assert.False(t, p == "net/http" || strings.HasPrefix(p, "net/http/"), "%s imports %s", name, p)
		}
	}
}
