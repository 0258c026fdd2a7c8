package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":     "us-west1",
		"a b":          "a b",
		"Hello, 世界":    "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" lead":        "=?base64?IGxlYWQ=?=",
		"trail ":       "=?base64?dHJhaWwg?=",
		"=?base64?x?=": "=?base64?PT9iYXNlNjQ/eD89?=",
		"a\nb":         "=?base64?YQpi?=",
		"":             "",
	} {
		assert.Equal(t, want, headerValue(in), "%q", in)
	}
}

func TestSchemaHeaders(t *testing.T) {
	hs, err := schemaHeaders(json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer"}}}`))
	require.NoError(t, err)
	assert.Equal(t, []headerArg{{arg: "region", header: "Region"}}, hs)
	for name, schema := range map[string]string{
		"not a token": `{"properties":{"a":{"type":"string","x-mcp-header":"Bad Name"}}}`,
		"empty":       `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`,
		"number":      `{"properties":{"a":{"type":"number","x-mcp-header":"A"}}}`,
		"duplicate":   `{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
		"nested":      `{"properties":{"a":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}`,
	} {
		_, err := schemaHeaders(json.RawMessage(schema))
		assert.Error(t, err, name)
	}
}

// A tool with an invalid annotation is dropped from tools/list, with a warning logged.
func TestListToolsDropsInvalidAnnotations(t *testing.T) {
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[`+
			`{"name":"good","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"R"}}}},`+
			`{"name":"bad","inputSchema":{"type":"object","properties":{"r":{"type":"number","x-mcp-header":"R"}}}}]}}`)
		return true
	})
	var logs bytes.Buffer
	var mu sync.Mutex
	c := connect(t, f.url(), Config{Era: EraModern, Logger: slog.New(slog.NewTextHandler(lockedWriter{&mu, &logs}, nil))})
	tools, err := c.ListTools(context.Background())
	require.NoError(t, err)
	require.Len(t, tools, 1)
	assert.Equal(t, "good", tools[0].Name)
	assert.Equal(t, []headerArg{{arg: "r", header: "R"}}, c.tools.get("good"))
	mu.Lock()
	assert.Contains(t, logs.String(), "dropping a tool with invalid x-mcp-header annotations")
	assert.Contains(t, logs.String(), "tool=bad")
	mu.Unlock()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// 32 concurrent callers share one pool of PoolSize connections.
func TestConcurrentCallsSharePool(t *testing.T) {
	s := startServer(t, streamable.ListenerConfig{})
	c := connect(t, s.URL(), Config{Era: EraModern})
	var wg sync.WaitGroup
	errs := make(chan error, 32*10)
	for range 32 {
		wg.Go(func() {
			for range 10 {
				if _, err := c.CallTool(context.Background(), "echo", []byte(`{"text":"x"}`)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	st := c.Stats()
	t.Logf("%+v", st)
	assert.LessOrEqual(t, st.Dials-st.Retired, int64(DefaultPoolSize), "open connections never exceed PoolSize")
	assert.Equal(t, int64(320), st.Dials+st.Reuses)
}
