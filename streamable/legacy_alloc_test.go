//go:build !race

package streamable

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// legacyEchoRequest is echoRequest as an initialize-era client sends it: no _meta, the
// negotiated version in MCP-Protocol-Version, no mirrored headers.
func legacyEchoRequest() []byte {
	body := legacyCall("1", "echo", `{"text":"hello, world"}`)
	return []byte("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

// TestAllocsListenerLegacyBudget pins the allocations of a keep-alive legacy tools/call
// through the native listener (classification, the inflight registry, the core) beside
// the modern one's, measured the same way: within 10% of it, and the modern budget of two.
func TestAllocsListenerLegacyBudget(t *testing.T) {
	ln := serveInmemory(t)
	measure := func(req []byte) float64 {
		c, err := ln.Dial()
		require.NoError(t, err)
		defer c.Close()
		br := bufio.NewReaderSize(c, 4096)
		roundTrip := func() {
			_, err := c.Write(req)
			require.NoError(t, err)
			require.NoError(t, readOne(br))
		}
		for range 100 {
			roundTrip()
		}
		return testing.AllocsPerRun(2000, roundTrip)
	}
	modern, legacy := measure(echoRequest()), measure(legacyEchoRequest())
	t.Logf("allocations per tools/call: 2026-07-28 %.2f, 2025-11-25 %.2f", modern, legacy)
	assert.LessOrEqual(t, legacy, 2.0)
	assert.LessOrEqual(t, legacy, modern*1.1+0.1)
}

// nethttpCall is one request through the net/http adapter's ServeHTTP with no network.
type nethttpCall struct {
	h    *Handler
	body []byte
	rd   *bytes.Reader
	req  *http.Request
	w    *httptest.ResponseRecorder
}

func newNethttpCall(tb testing.TB, h *Handler, body string, headers map[string]string) *nethttpCall {
	c := &nethttpCall{h: h, body: []byte(body)}
	c.rd = bytes.NewReader(c.body)
	c.req = httptest.NewRequest(http.MethodPost, "/mcp", c.rd)
	c.req.Host = "127.0.0.1:8080"
	c.req.Header.Set("Content-Type", "application/json")
	c.req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		c.req.Header.Set(k, v)
	}
	c.req.ContentLength = int64(len(c.body))
	c.w = httptest.NewRecorder()
	return c
}

func (c *nethttpCall) do(tb testing.TB) {
	c.rd.Reset(c.body)
	c.w.Body.Reset()
	c.h.ServeHTTP(c.w, c.req)
	if c.w.Code != http.StatusOK {
		tb.Fatalf("status %d: %s", c.w.Code, c.w.Body)
	}
}

var (
	modernHeaders = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}
	legacyHeaders = map[string]string{"Mcp-Protocol-Version": "2025-11-25"}
)

// dialectCalls are the two tools/call requests the dialect budgets and benchmarks compare.
func dialectCalls(tb testing.TB, h *Handler) map[string]*nethttpCall {
	return map[string]*nethttpCall{
		"2026-07-28": newNethttpCall(tb, h, call("1", "echo", `{"text":"hello, world"}`), modernHeaders),
		"2025-11-25": newNethttpCall(tb, h, legacyCall("1", "echo", `{"text":"hello, world"}`), legacyHeaders),
	}
}

// TestAllocsNetHTTPLegacyBudget compares the allocations of a tools/call through the net/http
// adapter's ServeHTTP in both dialects: the legacy one within 10% of the modern one.
func TestAllocsNetHTTPLegacyBudget(t *testing.T) {
	h, err := NewHandler(newCore(t), Config{})
	require.NoError(t, err)
	defer h.Close(context.Background())
	got := map[string]float64{}
	for d, c := range dialectCalls(t, h) {
		for range 100 {
			c.do(t)
		}
		got[d] = testing.AllocsPerRun(1000, func() { c.do(t) })
	}
	t.Logf("allocations per tools/call: 2026-07-28 %.2f, 2025-11-25 %.2f", got["2026-07-28"], got["2025-11-25"])
	assert.LessOrEqual(t, got["2025-11-25"], got["2026-07-28"]*1.1+0.1)
	assert.LessOrEqual(t, got["2025-11-25"], 20.0, "net/http's own (the recorder, the header map) and the transport's two")
}

// BenchmarkDialects measures a keep-alive tools/call in each dialect, side by side in one
// run: through the native listener over in-memory connections, and through the net/http
// adapter's ServeHTTP. Beside the time, cpu-ns/op is the process's CPU time (user and
// system, client included) per call: on a shared machine it moves less than the wall time,
// and its inverse is the throughput a saturated server reaches.
func BenchmarkDialects(b *testing.B) {
	ln := serveInmemory(b)
	for _, d := range []struct {
		name string
		req  []byte
	}{{"2026-07-28", echoRequest()}, {"2025-11-25", legacyEchoRequest()}} {
		b.Run("stack=native/dialect="+d.name, func(b *testing.B) {
			t0 := cpuTime()
			runClients(b, ln.Dial, d.req)
			b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op")
		})
	}
	h, err := NewHandler(newCore(b), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	calls := dialectCalls(b, h)
	for _, d := range []string{"2026-07-28", "2025-11-25"} {
		b.Run("stack=nethttp/dialect="+d, func(b *testing.B) {
			c := calls[d]
			b.ReportAllocs()
			t0 := cpuTime()
			for b.Loop() {
				c.do(b)
			}
			b.ReportMetric(float64(cpuTime()-t0)/float64(b.N), "cpu-ns/op")
		})
	}
}
