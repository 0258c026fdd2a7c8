package streamable

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkNetHTTPHandler serves a tools/call through the net/http adapter's ServeHTTP, with
// no network: admission, body read, executor, dispatch, response.
func BenchmarkNetHTTPHandler(b *testing.B) {
	h, err := NewHandler(newCore(b), Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	body := []byte(call("1", "echo", `{"text":"hello, world"}`))
	rd := bytes.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/mcp", rd)
	req.Host = "127.0.0.1:8080"
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo",
	} {
		req.Header.Set(k, v)
	}
	req.ContentLength = int64(len(body))
	w := httptest.NewRecorder()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		w.Body.Reset()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
