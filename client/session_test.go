package client

import (
	"bufio"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
)

// restartingFake is a sessionful initialize-era server that can "restart": it then forgets
// every session it issued, answering a request that names one with 404 and plain text, as
// go-sdk and mcp-go do. Each initialize issues a new session id (s1, s2, …). Its GET
// streams carry nothing; every POST and DELETE is recorded.
type restartingFake struct {
	*fakeServer
	mu       sync.Mutex
	sessions map[string]bool
	issued   int
	reqs     chan *fakeReq
	// resumeRefused makes the next tools/call's stream end after a priming event, so that the
	// client resumes it, and refuses that GET with 404.
	resumeRefused atomic.Bool
	// callsLost answers every tools/call with 404, in whatever session.
	callsLost atomic.Bool
}

func newRestartingFake(t *testing.T) *restartingFake {
	rf := &restartingFake{sessions: map[string]bool{}, reqs: make(chan *fakeReq, 64)}
	rf.fakeServer = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		head := string(r.head)
		if !strings.HasPrefix(head, "GET ") {
			rf.reqs <- r
		}
		method := decode.Lookup(r.body, "method").String()
		rf.mu.Lock()
		known := rf.sessions[r.header("Mcp-Session-Id")]
		if method == "initialize" {
			rf.issued++
			sid := "s" + string(rune('0'+rf.issued))
			rf.sessions[sid] = true
			rf.mu.Unlock()
			jsonResp(w, legacyInitResult(idOf(r.body), "2025-11-25"), "Mcp-Session-Id: "+sid)
			return true
		}
		rf.mu.Unlock()
		switch {
		case !known, method == "tools/call" && rf.callsLost.Load():
			w.WriteString("HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 18\r\n\r\nsession not found\n")
		case strings.HasPrefix(head, "GET ") && r.header("Last-Event-ID") == "":
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
		case strings.HasPrefix(head, "DELETE "):
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		case method == "tools/call" && rf.resumeRefused.Load():
			// The call runs, its stream breaks after a priming event; the server then
			// "restarts" before the client resumes.
			rf.restart()
			w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 24\r\n\r\nid: e1\nretry: 0\ndata:\n\n\n")
		case idOf(r.body) != "":
			jsonResp(w, `{"jsonrpc":"2.0","id":`+idOf(r.body)+`,"result":{"content":[{"type":"text","text":"ok"}]}}`)
		default:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	return rf
}

// restart forgets every session.
func (rf *restartingFake) restart() {
	rf.mu.Lock()
	clear(rf.sessions)
	rf.mu.Unlock()
}

// next returns the next recorded request: its method (or HTTP verb) and session id.
func (rf *restartingFake) next(t *testing.T) (string, string) {
	t.Helper()
	select {
	case r := <-rf.reqs:
		m := decode.Lookup(r.body, "method").String()
		if m == "" {
			m, _, _ = strings.Cut(string(r.head), " ")
		}
		return m, r.header("Mcp-Session-Id")
	case <-time.After(10 * time.Second):
		t.Fatal("no request")
		return "", ""
	}
}

// Issue 21, 3: after the server forgets the session (404 for its id), the client starts a
// new one with initialize, sent without the old id, and sends the request once more in it.
func TestSessionRenewedAfter404(t *testing.T) {
	rf := newRestartingFake(t)
	c := connect(t, rf.url(), Config{Era: EraLegacy})
	for _, want := range [][2]string{{"initialize", ""}, {"notifications/initialized", "s1"}} {
		m, sid := rf.next(t)
		assert.Equal(t, want, [2]string{m, sid})
	}

	rf.restart()
	res, err := c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"text","text":"ok"}]`, string(res.Content))
	for _, want := range [][2]string{
		{"tools/call", "s1"}, // 404
		{"initialize", ""},   // a new session, without the old id
		{"notifications/initialized", "s2"},
		{"tools/call", "s2"}, // the same request, once more
	} {
		m, sid := rf.next(t)
		assert.Equal(t, want, [2]string{m, sid})
	}
	require.NoError(t, c.Close())
	m, sid := rf.next(t)
	assert.Equal(t, [2]string{"DELETE", "s2"}, [2]string{m, sid}, "Close ends the new session")
}

// A second 404 in the new session is the caller's error: the request is sent twice at
// most. The 404 reaches it as an *HTTPError with its status.
func TestSession404RetriedOnce(t *testing.T) {
	rf := newRestartingFake(t)
	c := connect(t, rf.url(), Config{Era: EraLegacy})
	rf.next(t)
	rf.next(t)
	rf.callsLost.Store(true)
	_, err := c.CallTool(context.Background(), "echo", nil)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 404, he.Status)
	assert.Equal(t, "client: HTTP 404: \"session not found\\n\"", err.Error())
	for _, want := range [][2]string{{"tools/call", "s1"}, {"initialize", ""}, {"notifications/initialized", "s2"}, {"tools/call", "s2"}} {
		m, sid := rf.next(t)
		assert.Equal(t, want, [2]string{m, sid})
	}
	require.NoError(t, c.Close())
	m, _ := rf.next(t)
	assert.Equal(t, "DELETE", m, "no third tools/call")
}

// Issue 21, 3: a call whose event stream broke and whose resumption the server refused with
// 404 may have run: it is not sent again (the error says so), but the session is renewed
// for the next call.
func TestSession404OnResumeNotRetried(t *testing.T) {
	rf := newRestartingFake(t)
	c := connect(t, rf.url(), Config{Era: EraLegacy})
	rf.next(t)
	rf.next(t)
	rf.resumeRefused.Store(true)
	_, err := c.CallTool(context.Background(), "transfer", nil)
	rf.resumeRefused.Store(false)
	require.ErrorIs(t, err, errResumeRefused)
	var he *HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 404, he.Status)
	for _, want := range [][2]string{{"tools/call", "s1"}, {"initialize", ""}, {"notifications/initialized", "s2"}} {
		m, sid := rf.next(t)
		assert.Equal(t, want, [2]string{m, sid})
	}
	_, err = c.CallTool(context.Background(), "echo", nil)
	require.NoError(t, err)
	m, sid := rf.next(t)
	assert.Equal(t, [2]string{"tools/call", "s2"}, [2]string{m, sid}, "the refused call was not sent again")
}

// Issue 21, 3: Close ends a legacy session with DELETE, with its id and revision, and does
// not wait long for a server that never answers it.
func TestCloseDeletesSession(t *testing.T) {
	hf := newHoldingFake(t)
	c := connect(t, hf.url(), Config{Era: EraLegacy})
	closeWithin(t, c, 5*time.Second)
	assert.Equal(t, int64(1), hf.deletes.Load())

	var f *fakeServer
	f = newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		switch head := string(r.head); {
		case strings.HasPrefix(head, "DELETE "), strings.HasPrefix(head, "GET "):
			<-f.done // never answers
			return false
		}
		if id := idOf(r.body); id != "" {
			jsonResp(w, legacyInitResult(id, "2025-11-25"), "Mcp-Session-Id: sess-1")
			return true
		}
		w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		return true
	})
	c = connect(t, f.url(), Config{Era: EraLegacy, RequestTimeout: 100 * time.Millisecond})
	start := time.Now()
	closeWithin(t, c, 5*time.Second)
	assert.Less(t, time.Since(start), 2*time.Second, "the DELETE is bounded by RequestTimeout")
}

// A 204 without Content-Length has no body (RFC 9112 §6.3): go-sdk answers the session's
// DELETE so, and a server may answer a notification so. Reading one must not wait for the
// server to close the connection.
func TestNoContentHasNoBody(t *testing.T) {
	var deletes atomic.Int64
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		switch head := string(r.head); {
		case strings.HasPrefix(head, "GET "):
			w.WriteString("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
			return true
		case strings.HasPrefix(head, "DELETE "):
			deletes.Add(1)
		}
		if id := idOf(r.body); id != "" {
			jsonResp(w, legacyInitResult(id, "2025-11-25"), "Mcp-Session-Id: sess-1")
			return true
		}
		w.WriteString("HTTP/1.1 204 No Content\r\n\r\n")
		return true
	})
	// notifications/initialized is answered 204: Connect does not wait out RequestTimeout.
	c := connect(t, f.url(), Config{Era: EraLegacy, RequestTimeout: time.Minute})
	require.NoError(t, c.Ping(context.Background()))
	closeWithin(t, c, 5*time.Second)
	assert.Equal(t, int64(1), deletes.Load())
}
