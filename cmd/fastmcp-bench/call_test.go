package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fixtures"
	"github.com/fastmcp-go/fastmcp/streamable"
)

const callSchema = `{"type":"object","properties":{
	"text":{"type":"string"},"n":{"type":"integer"},"x":{"type":"number"},"on":{"type":"boolean"},
	"obj":{"type":"object"},"xs":{"type":"array"},"any":{"type":["string","null"]}}}`

func TestCallArgsBySchema(t *testing.T) {
	got, err := callArgs([]string{"text=42", "n=7", "x=2.5", "on=true", `obj={"a": 1}`, "xs=[1, 2]", "any=null", "extra=héllo"}, json.RawMessage(callSchema))
	require.NoError(t, err)
	assert.Equal(t, `{"any":null,"extra":"héllo","n":7,"obj":{"a":1},"on":true,"text":"42","x":2.5,"xs":[1,2]}`, string(got))
}

func TestCallArgsWithoutSchema(t *testing.T) {
	got, err := callArgs([]string{"a=2", "b=-3.5", "t=true", "s=hello world", "q=\"quoted\"", "empty="}, nil)
	require.NoError(t, err)
	assert.Equal(t, `{"a":2,"b":-3.5,"empty":"","q":"quoted","s":"hello world","t":true}`, string(got))

	got, err = callArgs(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, `{}`, string(got))
}

func TestCallArgsErrors(t *testing.T) {
	schema := json.RawMessage(callSchema)
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"novalue"}, `argument "novalue" is not key=value`},
		{[]string{"=v"}, `argument "=v" is not key=value`},
		{[]string{"a=1", "a=2"}, `argument "a" given twice`},
		{[]string{"n=1.5"}, `argument n: "1.5" is not an integer`},
		{[]string{"x=abc"}, `argument x: "abc" is not a number`},
		{[]string{"on=yes"}, `argument on: "yes" is not a boolean`},
		{[]string{"obj={"}, `argument obj: "{" is not JSON (the property is an object)`},
	} {
		_, err := callArgs(tc.words, schema)
		assert.EqualError(t, err, tc.want, "%q", tc.words)
	}
	_, err := callArgs([]string{"a=1"}, json.RawMessage(`[`))
	assert.ErrorContains(t, err, "tool inputSchema:")
}

// startCallServer serves the demo and conformance catalogs, both eras, with the net/http
// handler on an httptest server: it leaves no goroutine behind for goleak to find.
func startCallServer(t *testing.T) string {
	t.Helper()
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "call-test", Version: "1.0.0"}, nil)
	require.NoError(t, err)
	require.NoError(t, fixtures.Register(core, "conformance,demo"))
	h, err := streamable.NewHandler(core, streamable.Config{})
	require.NoError(t, err)
	s := httptest.NewServer(h)
	t.Cleanup(func() {
		s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, h.Close(ctx))
	})
	return s.URL + "/mcp"
}

func TestCallCommand(t *testing.T) {
	url := startCallServer(t)
	call := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := runCall(context.Background(), args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	for _, era := range []string{"auto", "modern", "legacy"} {
		code, out, stderr := call("--era", era, url, "echo", "text=héllo 42")
		assert.Equal(t, 0, code, "era %s: %s", era, stderr)
		assert.Equal(t, "héllo 42\n", out, "era %s", era)

		// region is typed string by the schema, so 7 stays "7".
		code, out, stderr = call("--era", era, url, "region_echo", "region=7", "text=hi")
		assert.Equal(t, 0, code, "era %s: %s", era, stderr)
		assert.Equal(t, "7: hi\n", out, "era %s", era)
	}

	// Progress goes to stderr in order; stdout is the result alone. Both eras deliver it.
	for _, era := range []string{"modern", "legacy"} {
		code, out, stderr := call("--era", era, url, "test_tool_with_progress")
		assert.Equal(t, 0, code, "era %s: %s", era, stderr)
		assert.Equal(t, "Progress complete\n", out, "era %s", era)
		assert.Equal(t, "progress 0/100 Completed step 0 of 100\nprogress 50/100 Completed step 50 of 100\nprogress 100/100 Completed step 100 of 100\n", stderr, "era %s", era)
	}

	code, out, _ := call(url, "sleep_stats")
	assert.Equal(t, 0, code)
	assert.Equal(t, "{\"started\":0,\"completed\":0,\"cancelled\":0}\n", lastLine(out))

	code, out, _ = call(url, "test_error_handling")
	assert.Equal(t, 1, code, "a tool error exits 1")
	assert.NotEmpty(t, out, "and still prints the result")

	code, _, stderr := call(url, "no_such_tool")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `call: the server lists no tool "no_such_tool" (it lists: `)

	code, _, stderr = call(url, "echo", "text")
	assert.Equal(t, 1, code)
	assert.Equal(t, "call: argument \"text\" is not key=value\n", stderr)

	code, _, stderr = call(url, "panic")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "call: mcp error -32603")
}

func TestCallCommandUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: fastmcp-bench call [flags] URL TOOL [key=value...]"},
		{[]string{"http://127.0.0.1:1/mcp"}, "Usage: fastmcp-bench call"},
		{[]string{"--era", "new", "http://127.0.0.1:1/mcp", "t"}, `call: --era must be auto, modern, legacy or 2025-06-18, got "new"`},
		{[]string{"--timeout", "0s", "http://127.0.0.1:1/mcp", "t"}, "call: --timeout must be positive, got 0s"},
		{[]string{"--nope"}, "flag provided but not defined: -nope"},
		{[]string{"--command", "fastmcp-bench serve --stdio"}, "Usage: fastmcp-bench call"},
	} {
		var out, errOut bytes.Buffer
		assert.Equal(t, 2, runCall(context.Background(), tc.args, &out, &errOut), "%q", tc.args)
		assert.Contains(t, errOut.String(), tc.want, "%q", tc.args)
		assert.Empty(t, out.String())
	}
	var errOut bytes.Buffer
	assert.Equal(t, 1, runCall(context.Background(), []string{"ftp://x", "t"}, io.Discard, &errOut))
	assert.Contains(t, errOut.String(), `call: client: target "ftp://x" is not an http(s) URL`)

	// With --command every positional word is the tool and its arguments.
	errOut.Reset()
	assert.Equal(t, 1, runCall(context.Background(), []string{"--command", "/nonexistent/server --stdio", "echo", "text=x"}, io.Discard, &errOut))
	assert.Regexp(t, `^call: client: `, errOut.String())
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1] + "\n"
}

// FuzzCallArgs: any words and schema either fail cleanly or give one JSON object.
func FuzzCallArgs(f *testing.F) {
	f.Add("text=héllo", "n=7", callSchema)
	f.Add(`obj={"a":1}`, "xs=[1,2]", "")
	f.Add("a=", "=b", `{"properties":{"a":{"type":"integer"}}}`)
	f.Fuzz(func(t *testing.T, w1, w2, schema string) {
		var s json.RawMessage
		if schema != "" {
			s = json.RawMessage(schema)
		}
		got, err := callArgs([]string{w1, w2}, s)
		if err != nil {
			return
		}
		var obj map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(got, &obj), "%s", got)
	})
}
