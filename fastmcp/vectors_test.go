package fastmcp_test

// Wire vectors: literal JSON-RPC exchanges in testdata/vectors/*.txtar (the format is in the
// documentation of internal/wirevector), run against the core as a stateless HTTP transport
// serves it (Classify, then Handle or the core (transport.Endpoint.Serve)). The stdio and Streamable HTTP transports
// run the same files through their own exchanges.

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

var vectorDir = filepath.Join("testdata", "vectors")

func TestVectors(t *testing.T) {
	for _, v := range wirevector.Load(t, vectorDir) {
		t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
			s, fx := wirevector.NewFixtureServer(t, v.Setup)
			wirevector.RunSteps(t, v, wirevector.CoreSteps(s, fx), wirevector.Options{})
		})
	}
}

// TestVectorsASCII runs the vectors as a 7-bit transport sees them: the core's output with
// every non-ASCII character escaped, as stdio writes it, against expectations escaped alike.
func TestVectorsASCII(t *testing.T) {
	for _, v := range wirevector.Load(t, vectorDir) {
		t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
			s, fx := wirevector.NewFixtureServer(t, v.Setup)
			core := wirevector.CoreSteps(s, fx)
			wirevector.RunSteps(t, v, func(st wirevector.Step, req []byte) ([]byte, [][]byte) {
				reply, notes := core(st, req)
				for i, n := range notes {
					notes[i] = decode.AppendASCII(nil, n)
				}
				if reply != nil {
					reply = decode.AppendASCII(nil, reply)
				}
				return reply, notes
			}, wirevector.Options{ASCII: true})
		})
	}
}

// TestVectorsCoverMethods checks that the vectors send every method of the core, and that
// every error code the core emits appears in some reply. Placeholders stand only for string
// values ("{{s1}}"), so the lines that carry them are still JSON.
func TestVectorsCoverMethods(t *testing.T) {
	methods := map[string]bool{}
	codes := map[string]bool{}
	for _, v := range wirevector.Load(t, vectorDir) {
		for _, st := range v.Steps {
			var m struct{ Method string }
			if json.Unmarshal([]byte(st.Request), &m) == nil {
				methods[m.Method] = true
			}
			var r struct {
				Error *struct{ Code int }
			}
			if json.Unmarshal([]byte(st.Reply), &r) == nil && r.Error != nil {
				codes[strconv.Itoa(r.Error.Code)] = true
			}
		}
	}
	for _, m := range []string{
		fastmcp.MethodDiscover, fastmcp.MethodToolsList, fastmcp.MethodToolsCall, fastmcp.MethodPromptsList,
		fastmcp.MethodPromptsGet, fastmcp.MethodResourcesList, fastmcp.MethodResourceTemplates,
		fastmcp.MethodResourcesRead, fastmcp.MethodComplete, fastmcp.MethodListen,
		fastmcp.MethodInitialize, fastmcp.MethodPing, fastmcp.MethodSetLevel,
		fastmcp.MethodResourcesSubscribe, fastmcp.MethodResourcesUnsubscribe,
	} {
		require.True(t, methods[m], "no vector sends %s", m)
	}
	for _, c := range []fastmcp.Code{
		fastmcp.CodeParseError, fastmcp.CodeInvalidRequest, fastmcp.CodeMethodNotFound, fastmcp.CodeInvalidParams,
		fastmcp.CodeInternalError, fastmcp.CodeMissingCapability, fastmcp.CodeUnsupportedVersion, fastmcp.CodeAccessDenied,
		fastmcp.CodeResourceNotFound,
	} {
		require.True(t, codes[strconv.Itoa(int(c))], "no vector replies with code %d", c)
	}
}

// vectorRequests returns the request lines of every vector, placeholders left in, for seeding
// fuzz targets.
func vectorRequests(t testing.TB) [][]byte {
	var out [][]byte
	for _, v := range wirevector.Load(t, vectorDir) {
		for _, st := range v.Steps {
			out = append(out, []byte(st.Request))
		}
	}
	slices.SortFunc(out, bytes.Compare)
	return slices.CompactFunc(out, bytes.Equal)
}
