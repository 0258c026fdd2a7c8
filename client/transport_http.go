package client

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"
)

// httpTransport posts each message to the endpoint over the pool. It never uses net/http:
// requests are written by hand and response heads parsed by fasthttp.ResponseHeader.
type httpTransport struct {
	pool    *pool
	host    string // Host header
	path    string // request target
	maxBody int
	timeout time.Duration
	// session is the Mcp-Session-Id a legacy server issued, sent on every later request.
	session atomic.Pointer[string]
}

func newHTTPTransport(u *url.URL, cfg *Config) (transport, error) {
	addr := u.Host
	var tc *tls.Config
	if _, _, err := net.SplitHostPort(addr); err != nil {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	if u.Scheme == "https" {
		tc = &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" {
		path += "?" + u.RawQuery
	}
	return &httpTransport{
		pool:    newPool(addr, tc, cfg),
		host:    u.Host,
		path:    path,
		maxBody: cfg.MaxResponseBytes,
		timeout: cfg.RequestTimeout,
	}, nil
}

func (t *httpTransport) cancelsByClose() bool { return true }

func (t *httpTransport) close() error {
	t.pool.close()
	return nil
}

func (t *httpTransport) deadline(ctx context.Context) time.Time {
	d := time.Now().Add(t.timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

// exchange sends msg and reads the response head; the caller then owns pc's body.
func (t *httpTransport) exchange(ctx context.Context, msg []byte, hdr *headers) (*pconn, time.Time, func() bool, error) {
	deadline := t.deadline(ctx)
	pc, err := t.pool.acquire(ctx, deadline)
	if err != nil {
		return nil, deadline, nil, err
	}
	_ = pc.nc.SetDeadline(deadline)
	stop := func() bool { return true }
	if ctx.Done() != nil {
		// Cancellation closes the socket's deadline, so a blocked read or write returns now.
		stop = context.AfterFunc(ctx, func() { _ = pc.nc.SetDeadline(time.Unix(1, 0)) })
	}
	if err := t.writeRequest(pc, msg, hdr); err != nil {
		stop()
		t.pool.release(pc, false)
		return nil, deadline, nil, t.ioErr(ctx, "sending the request", err)
	}
	pc.hdr.Reset()
	if err := pc.hdr.Read(pc.br); err != nil {
		stop()
		t.pool.release(pc, false)
		return nil, deadline, nil, t.ioErr(ctx, "reading the response head", err)
	}
	if s := pc.hdr.Peek("Mcp-Session-Id"); len(s) > 0 {
		if cur := t.session.Load(); cur == nil || *cur != string(s) {
			v := string(s)
			t.session.Store(&v)
		}
	}
	return pc, deadline, stop, nil
}

// ioErr reports a failed exchange, as the context's error when it ended the exchange.
func (t *httpTransport) ioErr(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("client: %s: %w", what, ctx.Err())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("client: %s: %w", what, context.DeadlineExceeded)
	}
	return fmt.Errorf("client: %s: %w", what, err)
}

func (t *httpTransport) writeRequest(pc *pconn, msg []byte, hdr *headers) error {
	w := pc.bw
	w.WriteString("POST ")
	w.WriteString(t.path)
	w.WriteString(" HTTP/1.1\r\nHost: ")
	w.WriteString(t.host)
	w.WriteString("\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ")
	var num [20]byte
	w.Write(strconv.AppendInt(num[:0], int64(len(msg)), 10))
	if hdr != nil {
		writeHeader(w, "MCP-Protocol-Version", hdr.version)
		writeHeader(w, "Mcp-Method", hdr.method)
		writeHeader(w, "Mcp-Name", hdr.name)
		for _, p := range hdr.params {
			writeHeader(w, "Mcp-Param-"+p.name, p.value)
		}
	}
	if s := t.session.Load(); s != nil {
		writeHeader(w, "Mcp-Session-Id", *s)
	}
	w.WriteString("\r\n\r\n")
	w.Write(msg)
	return w.Flush()
}

// writeHeader writes one header line; values are plain ASCII by construction (headerValue).
func writeHeader(w interface{ WriteString(string) (int, error) }, name, value string) {
	if value == "" {
		return
	}
	w.WriteString("\r\n")
	w.WriteString(name)
	w.WriteString(": ")
	w.WriteString(value)
}

func (t *httpTransport) roundTrip(ctx context.Context, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	pc, _, stop, err := t.exchange(ctx, req, hdr)
	if err != nil {
		return nil, err
	}
	defer stop()
	h := &pc.hdr
	if bytes.HasPrefix(h.ContentType(), []byte("text/event-stream")) {
		// The stream detaches from the pool: its slot frees now, its socket closes at the end.
		t.pool.release(nil, false)
		defer t.pool.retire(pc)
		return t.readStream(ctx, pc, req, onMessage)
	}
	// The head belongs to the connection: read what is needed before it returns to the pool.
	status := h.StatusCode()
	isJSON := bytes.HasPrefix(h.ContentType(), []byte("application/json"))
	body, reusable, err := t.readBody(pc)
	t.pool.release(pc, reusable && err == nil)
	if err != nil {
		return nil, t.ioErr(ctx, "reading the response", err)
	}
	if len(body) > 0 && isJSON {
		return body, nil // a JSON-RPC response, also for the 4xx of modern errors
	}
	if len(body) > 512 {
		body = body[:512]
	}
	if status >= 200 && status < 300 {
		return nil, fmt.Errorf("%w: HTTP %d without a JSON or event-stream body", ErrMalformed, status)
	}
	return nil, &HTTPError{Status: status, Body: body}
}

// readBody reads a non-stream body and reports whether the connection may be reused: only
// after an HTTP/1.1 response with a complete Content-Length body and no Connection: close.
func (t *httpTransport) readBody(pc *pconn) ([]byte, bool, error) {
	h := &pc.hdr
	reusable := h.IsHTTP11() && !h.ConnectionClose()
	switch n := h.ContentLength(); {
	case n >= 0:
		b, err := readFull(pc.br, int64(n), t.maxBody)
		return b, reusable, err
	case n == -1: // chunked
		b, err := readAllBounded(&chunkedReader{br: pc.br}, t.maxBody)
		return b, false, err
	default: // framed by the socket closing
		b, err := readAllBounded(pc.br, t.maxBody)
		return b, false, err
	}
}

// readStream reads the event stream of one request until its response.
func (t *httpTransport) readStream(ctx context.Context, pc *pconn, req []byte, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	var body io.Reader = pc.br
	switch n := pc.hdr.ContentLength(); {
	case n == -1:
		body = &chunkedReader{br: pc.br}
	case n >= 0:
		body = io.LimitReader(pc.br, int64(n))
	}
	id := requestID(req)
	sr := newSSEReader(body, t.maxBody)
	for {
		data, err := sr.next()
		if err != nil {
			if err == io.EOF {
				return nil, fmt.Errorf("%w: the event stream ended before the response", ErrMalformed)
			}
			return nil, t.ioErr(ctx, "reading the event stream", err)
		}
		if isResponseTo(data, id) {
			return bytes.Clone(data), nil
		}
		reply, err := onMessage(data)
		if err != nil {
			return nil, err
		}
		if reply != nil {
			// A legacy server's request on this stream is answered by a separate POST.
			if err := t.notify(ctx, reply, nil); err != nil {
				return nil, err
			}
		}
	}
}

func (t *httpTransport) notify(ctx context.Context, msg []byte, hdr *headers) error {
	pc, _, stop, err := t.exchange(ctx, msg, hdr)
	if err != nil {
		return err
	}
	defer stop()
	status := pc.hdr.StatusCode()
	body, reusable, err := t.readBody(pc)
	t.pool.release(pc, reusable && err == nil)
	if err != nil {
		return t.ioErr(ctx, "reading the response", err)
	}
	if status < 200 || status >= 300 {
		if len(body) > 512 {
			body = body[:512]
		}
		return &HTTPError{Status: status, Body: body}
	}
	return nil
}
