package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// The bad backends of these tests are a real backend (newBackendServer) behind a proxy
// that misbehaves on the tools/call of the tools named below, and forwards everything else:
// the backend connects, lists and answers its health checks as any other.
const (
	badMalformed  = "malformed"  // a body that is not JSON
	badNotRPC     = "notrpc"     // a JSON object that is not a JSON-RPC response
	badWrongShape = "wrongshape" // a response whose result's content is not an array
	badHuge       = "huge"       // a 64 MiB JSON body, chunked (no Content-Length)
	badHugeEvent  = "huge-event" // one 64 MiB event on an event stream
	badHang       = "hang"       // never answers: the handler waits for the caller to leave
	hugeBytes     = 64 << 20     // what badHuge and badHugeEvent send
	hugeChunk     = 64 << 10     // written at a time, from one buffer
	maxProxyBody  = 1 << 20      // a request the proxy reads
)

var badTools = []string{badMalformed, badNotRPC, badWrongShape, badHuge, badHugeEvent, badHang}

// badProxy fronts a real backend; see the constants above for what it does wrong.
type badProxy struct {
	rp *httputil.ReverseProxy

	hangs     chan struct{} // a badHang call reached the proxy
	hangEnded chan struct{} // a badHang call's request ended (the gateway hung up)
	hugeSent  atomic.Int64  // bytes of the last huge answer written before the gateway hung up

	// ownListen: the proxy answers subscriptions/listen itself, with a stream that sends
	// what floods asks for (the backend's Server would coalesce list_changed).
	ownListen atomic.Bool
	floods    chan int // write this many tools list_changed on the listen stream
	listening chan struct{}

	lists    atomic.Int64                  // tools/list requests forwarded
	listGate atomic.Pointer[chan struct{}] // when set, tools/list waits for it to close
	listHeld chan struct{}                 // a tools/list is waiting on listGate
}

// newBadBackend serves a backend named name (whose catalog also lists badTools) behind a
// badProxy; it returns the proxy, its URL and the backend's Server.
func newBadBackend(t testing.TB, name string) (*badProxy, string, *fastmcp.Server) {
	t.Helper()
	core := newBackendServer(name, nil)
	for _, tool := range badTools {
		fastmcp.AddTool(core, fastmcp.Tool{Name: tool, Description: "misbehaves behind the proxy"},
			func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: "well"}, nil
			})
	}
	backendURL, _ := serveHTTP(t, core, "", nil)
	target, err := url.Parse(backendURL)
	require.NoError(t, err)
	p := &badProxy{
		hangs: make(chan struct{}, 64), hangEnded: make(chan struct{}, 64), listHeld: make(chan struct{}, 64),
		floods: make(chan int), listening: make(chan struct{}, 8),
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host}) },
		FlushInterval: -1, // event streams pass as they come
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			_ = hs.Close()
		}
		<-done
	})
	return p, "http://" + ln.Addr().String() + target.Path, core
}

// holdLists makes tools/list requests wait until the returned release is called.
func (p *badProxy) holdLists() (release func()) {
	gate := make(chan struct{})
	p.listGate.Store(&gate)
	var once sync.Once
	return func() {
		once.Do(func() {
			p.listGate.CompareAndSwap(&gate, nil)
			close(gate)
		})
	}
}

func (p *badProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxProxyBody))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	if msg.Method == "tools/list" {
		p.lists.Add(1)
		if gate := p.listGate.Load(); gate != nil {
			p.listHeld <- struct{}{}
			select {
			case <-*gate:
			case <-r.Context().Done():
				return
			}
		}
	}
	if msg.Method == "tools/call" && p.misbehave(w, r, msg.ID, msg.Params.Name) {
		return
	}
	if msg.Method == "subscriptions/listen" && p.ownListen.Load() {
		p.listen(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	p.rp.ServeHTTP(w, r)
}

// misbehave answers the call of a bad tool badly; false for any other tool.
func (p *badProxy) misbehave(w http.ResponseWriter, r *http.Request, id json.RawMessage, tool string) bool {
	head := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":"`
	switch tool {
	case badMalformed:
		writeJSON(w, head+`oops, the answer stops here`)
	case badNotRPC:
		writeJSON(w, `{"hello":"world"}`)
	case badWrongShape:
		writeJSON(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"content":"not a list"}}`)
	case badHuge:
		w.Header().Set("Content-Type", "application/json")
		p.hugeSent.Store(writeHuge(w, head, ""))
	case badHugeEvent:
		w.Header().Set("Content-Type", "text/event-stream")
		p.hugeSent.Store(writeHuge(w, "event: message\ndata: "+head, "\n\n"))
	case badHang:
		p.hangs <- struct{}{}
		<-r.Context().Done()
		p.hangEnded <- struct{}{}
	default:
		return false
	}
	return true
}

// listen acknowledges a listen request for every list and then writes the list_changed
// notifications floods asks for, until the gateway hangs up.
func (p *badProxy) listen(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(msg string) { _, _ = io.WriteString(w, "data: "+msg+"\n\n") }
	event(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}}`)
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	p.listening <- struct{}{}
	for {
		select {
		case n := <-p.floods:
			for range n {
				event(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
			}
			_ = rc.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func writeJSON(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, body)
}

// writeHuge writes head, hugeBytes of text from one buffer, then tail, stopping at the
// first failed write; it returns the bytes written.
func writeHuge(w http.ResponseWriter, head, tail string) int64 {
	n, err := io.WriteString(w, head)
	sent := int64(n)
	chunk := bytes.Repeat([]byte("x"), hugeChunk)
	for sent < hugeBytes && err == nil {
		n, err = w.Write(chunk)
		sent += int64(n)
	}
	if err == nil {
		n, _ = io.WriteString(w, `"}]}}`+tail)
		sent += int64(n)
	}
	return sent
}

// stdioBadBackendEnv makes the test binary's stdio backend (stdioBackendEnv) a bad one: its
// output passes through a markerWriter.
const stdioBadBackendEnv = "GATEWAY_TEST_STDIO_BAD"

// Markers a stdio bad backend's tools answer with; markerWriter rewrites the lines that
// carry them.
const (
	markMalformed = "MARK-MALFORMED"
	markHuge      = "MARK-HUGE"
	stdioHugeLine = 16 << 20 // what markHuge's line carries
)

// newStdioBadServer is the stdio bad backend: the test backend, with tools whose answers
// markerWriter rewrites.
func newStdioBadServer(name string) *fastmcp.Server {
	srv := newBackendServer(name, nil)
	for tool, mark := range map[string]string{badMalformed: markMalformed, badHuge: markHuge} {
		fastmcp.AddTool(srv, fastmcp.Tool{Name: tool, Description: "answers a line the output rewrites"},
			func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{Text: mark}, nil
			})
	}
	return srv
}

// markerWriter passes a stdio server's output lines through, but for the answers carrying a
// marker: a markMalformed answer becomes a line cut short after its id, a markHuge one a
// line of stdioHugeLine bytes.
type markerWriter struct {
	w       io.Writer
	partial []byte
}

func (m *markerWriter) Write(p []byte) (int, error) {
	m.partial = append(m.partial, p...)
	for {
		i := bytes.IndexByte(m.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := m.line(m.partial[:i+1]); err != nil {
			return 0, err
		}
		m.partial = m.partial[i+1:]
	}
}

func (m *markerWriter) line(l []byte) error {
	s := string(l)
	cut := strings.Index(s, `"result":`)
	switch {
	case cut >= 0 && strings.Contains(s, markMalformed):
		_, err := io.WriteString(m.w, s[:cut]+`"result":{"content":[oops`+"\n")
		return err
	case cut >= 0 && strings.Contains(s, markHuge):
		if _, err := io.WriteString(m.w, s[:cut]+`"result":{"content":[{"type":"text","text":"`); err != nil {
			return err
		}
		chunk := bytes.Repeat([]byte("x"), hugeChunk)
		for n := 0; n < stdioHugeLine; n += len(chunk) {
			if _, err := m.w.Write(chunk); err != nil {
				return err
			}
		}
		_, err := io.WriteString(m.w, `"}]}}`+"\n")
		return err
	}
	_, err := m.w.Write(l)
	return err
}
