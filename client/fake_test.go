package client

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeReq is one request a fakeServer read: its head and body, byte for byte.
type fakeReq struct {
	head, body []byte
}

// header returns the value of the named header (case-insensitive), "" when absent.
func (r *fakeReq) header(name string) string {
	for _, l := range strings.Split(string(r.head), "\r\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// fakeServer is a scripted HTTP/1.1 server: handle writes the response to each request
// (raw bytes) and reports whether to keep the connection open.
type fakeServer struct {
	ln      net.Listener
	accepts atomic.Int64
	mu      sync.Mutex
	conns   []net.Conn
	wg      sync.WaitGroup
}

func newFake(t *testing.T, handle func(r *fakeReq, w *bufio.Writer) bool) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	f := &fakeServer{ln: ln}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			f.accepts.Add(1)
			f.mu.Lock()
			f.conns = append(f.conns, nc)
			f.mu.Unlock()
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				defer nc.Close()
				br, bw := bufio.NewReader(nc), bufio.NewWriter(nc)
				for {
					r, ok := readFakeReq(br)
					if !ok {
						return
					}
					keep := handle(r, bw)
					if bw.Flush() != nil || !keep {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		f.mu.Lock()
		for _, c := range f.conns {
			_ = c.Close()
		}
		f.mu.Unlock()
		f.wg.Wait()
	})
	return f
}

func (f *fakeServer) url() string { return "http://" + f.ln.Addr().String() + "/mcp" }

func readFakeReq(br *bufio.Reader) (*fakeReq, bool) {
	var head bytes.Buffer
	n := 0
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			return nil, false
		}
		if l == "\r\n" {
			break
		}
		head.WriteString(l)
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, "Content-Length") {
			n, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(br, body); err != nil {
		return nil, false
	}
	return &fakeReq{head: bytes.TrimSuffix(head.Bytes(), []byte("\r\n")), body: body}, true
}

// jsonResp writes a 200 application/json response with a Content-Length.
func jsonResp(w *bufio.Writer, body string, extraHeaders ...string) {
	w.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n")
	for _, h := range extraHeaders {
		w.WriteString(h + "\r\n")
	}
	w.WriteString("\r\n" + body)
}

// idOf returns the id literal of a request body the client built.
func idOf(body []byte) string { return string(requestID(body)) }
