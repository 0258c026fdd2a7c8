package client

import (
	"bufio"
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
	authz   Authorizer // Config.Authorizer (authorizer.go)
	url     string     // scheme://host/path, as the Authorizer sees it
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
		authz:   cfg.Authorizer,
		url:     endpointURL(u),
	}, nil
}

func (t *httpTransport) cancelsByClose() bool { return true }

func (t *httpTransport) close() error {
	t.pool.close()
	return nil
}

func (t *httpTransport) deadline(ctx context.Context, hdr *headers) time.Time {
	timeout := t.timeout
	if hdr != nil && hdr.timeout > 0 {
		timeout = hdr.timeout
	}
	d := time.Now().Add(timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

// exchange sends msg and reads the response head; the caller then owns pc's body.
func (t *httpTransport) exchange(ctx context.Context, msg []byte, hdr *headers) (*pconn, time.Time, func() bool, error) {
	deadline := t.deadline(ctx, hdr)
	challenges := 0
	for attempt := 0; ; attempt++ {
		cred, err := t.credentials(ctx, msg)
		if err != nil {
			return nil, deadline, nil, err
		}
		pc, stop, err := t.try(ctx, deadline, msg, hdr, cred)
		if errors.Is(err, errStale) && attempt == 0 {
			continue // the server closed an idle connection as we reused it: once more, afresh
		}
		if errors.Is(err, ErrPoolTimeout) || errors.Is(err, ErrClosed) {
			return nil, deadline, nil, err
		}
		if err != nil {
			return nil, deadline, nil, t.ioErr(ctx, deadline, "", err)
		}
		if t.refused(pc) { // an authorization challenge: answered, then the request again
			if err := t.challenge(ctx, pc, stop, msg, cred, &challenges); err != nil {
				return nil, deadline, nil, err
			}
			deadline, attempt = t.deadline(ctx, hdr), -1
			continue
		}
		return pc, deadline, stop, nil
	}
}

// stepError is a failed step of an exchange (connecting, sending, waiting for the head):
// ioErr names the step in the error the caller gets.
type stepError struct {
	step string
	err  error
}

func (e *stepError) Error() string { return e.step + ": " + e.err.Error() }
func (e *stepError) Unwrap() error { return e.err }

// errStale marks a reused connection that failed before the server sent a byte: the server
// had closed it while idle, so the request never reached it and may be sent again.
var errStale = errors.New("client: stale pooled connection")

// try sends msg on one pooled connection and reads the response head.
func (t *httpTransport) try(ctx context.Context, deadline time.Time, msg []byte, hdr *headers, cred AuthCredentials) (*pconn, func() bool, error) {
	pc, err := t.pool.acquire(ctx, deadline)
	if err != nil {
		return nil, nil, err
	}
	reused := pc.uses > 0
	_ = pc.nc.SetDeadline(deadline)
	stop := func() bool { return true }
	if ctx.Done() != nil {
		// Cancellation closes the socket, so a blocked read or write returns now. A past
		// deadline would not do: the reader lifts the head's deadline once a stream is open,
		// and could lift the cancel's with it (issue 21). A closed socket stays closed. The
		// caller stops this before the connection may go back to the pool.
		stop = context.AfterFunc(ctx, pc.cancel)
	}
	if err := t.writeRequest(pc, msg, hdr, cred); err != nil {
		stop()
		t.pool.release(pc, false)
		if reused && ctx.Err() == nil {
			err = fmt.Errorf("%w: %w", errStale, err)
		}
		return nil, nil, &stepError{"sending the request", err}
	}
	pc.hdr.Reset()
	if err := pc.hdr.Read(pc.br); err != nil {
		stop()
		t.pool.release(pc, false)
		if reused && err == io.EOF && ctx.Err() == nil { // fasthttp: nothing read at all
			err = fmt.Errorf("%w: %w", errStale, err)
		}
		return nil, nil, &stepError{"waiting for the response head", err}
	}
	if s := pc.hdr.Peek("Mcp-Session-Id"); len(s) > 0 {
		if cur := t.session.Load(); cur == nil || *cur != string(s) {
			v := string(s)
			t.session.Store(&v)
		}
	}
	return pc, stop, nil
}

// ioErr reports a failed exchange step, what (or, when empty, the step a *stepError names),
// as the context's error when it ended the exchange. fasthttp reports a read past the
// deadline as its own error, so the clock decides. The client's own errors that explain
// themselves (ErrResponseTooLarge) are returned as they are.
func (t *httpTransport) ioErr(ctx context.Context, deadline time.Time, what string, err error) error {
	var se *stepError
	if what == "" && errors.As(err, &se) {
		what, err = se.step, se.err
	} else if what == "" {
		what = "exchanging with the server"
	}
	if errors.Is(err, ErrResponseTooLarge) {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("client: %s: %w", what, ctx.Err())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || !time.Now().Before(deadline) {
		return fmt.Errorf("client: %s: %w", what, context.DeadlineExceeded)
	}
	return fmt.Errorf("client: %s: %w", what, err)
}

func (t *httpTransport) writeRequest(pc *pconn, msg []byte, hdr *headers, cred AuthCredentials) error {
	w := pc.bw
	if msg == nil && hdr != nil && hdr.del { // the end of a legacy session
		w.WriteString("DELETE ")
		w.WriteString(t.path)
		w.WriteString(" HTTP/1.1\r\nHost: ")
		w.WriteString(t.host)
	} else if msg == nil { // the legacy standalone stream
		w.WriteString("GET ")
		w.WriteString(t.path)
		w.WriteString(" HTTP/1.1\r\nHost: ")
		w.WriteString(t.host)
		w.WriteString("\r\nAccept: text/event-stream")
	} else {
		w.WriteString("POST ")
		w.WriteString(t.path)
		w.WriteString(" HTTP/1.1\r\nHost: ")
		w.WriteString(t.host)
		w.WriteString("\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ")
		w.Write(strconv.AppendInt(w.AvailableBuffer(), int64(len(msg)), 10)) // no copy, no allocation
	}
	if hdr != nil {
		writeHeader(w, "MCP-Protocol-Version", hdr.version)
		writeHeader(w, "Mcp-Method", hdr.method)
		writeHeader(w, "Mcp-Name", hdr.name)
		writeHeader(w, "Last-Event-ID", hdr.lastEventID)
		for _, p := range hdr.params { // an empty argument is an empty header, still sent
			w.WriteString("\r\nMcp-Param-")
			w.WriteString(p.name)
			w.WriteString(": ")
			w.WriteString(p.value)
		}
	}
	if s := t.session.Load(); s != nil {
		writeHeader(w, "Mcp-Session-Id", *s)
	}
	writeCredentials(w, cred)
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
	pc, deadline, stop, err := t.exchange(ctx, req, hdr)
	if err != nil {
		return nil, err
	}
	defer stop()
	h := &pc.hdr
	if bytes.HasPrefix(h.ContentType(), []byte("text/event-stream")) {
		if hdr != nil && hdr.longLived {
			runHook(&testHookStreamHead)
			_ = pc.nc.SetDeadline(time.Time{})
			deadline = time.Time{}.Add(1<<63 - 1)
		}
		// The stream detaches from the pool: its slot frees now, its socket closes at the end.
		t.pool.release(nil, false)
		return t.readStream(ctx, deadline, pc, req, hdr, onMessage)
	}
	// The head belongs to the connection: read what is needed before it returns to the pool.
	status := h.StatusCode()
	isJSON := bytes.HasPrefix(h.ContentType(), []byte("application/json"))
	body, reusable, err := t.readBody(pc)
	t.pool.release(pc, reusable && err == nil && stop())
	if err != nil {
		return nil, t.ioErr(ctx, deadline, "reading the response", err)
	}
	ok := status >= 200 && status < 300
	if ok && len(body) > 0 && isJSON {
		return body, nil
	}
	if ok {
		return nil, fmt.Errorf("%w: HTTP %d without a JSON or event-stream body", ErrMalformed, status)
	}
	he := &HTTPError{Status: status, Body: body[:min(len(body), 512)]}
	if len(body) > 0 && isJSON {
		he.rpc = body // a JSON-RPC error, as modern servers send with 4xx: the core reads it
	}
	return nil, he
}

// readBody reads a non-stream body and reports whether the connection may be reused: only
// after an HTTP/1.1 response with a complete Content-Length body and no Connection: close.
func (t *httpTransport) readBody(pc *pconn) ([]byte, bool, error) {
	h := &pc.hdr
	reusable := h.IsHTTP11() && !h.ConnectionClose()
	if s := h.StatusCode(); s < 200 || s == 204 || s == 304 {
		return nil, reusable, nil // no body, whatever the headers say (RFC 9112 §6.3): go-sdk's 204 to DELETE
	}
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
// It owns pc and closes it, or the connection a resumption replaced it with, at the end.
func (t *httpTransport) readStream(ctx context.Context, deadline time.Time, pc *pconn, req []byte, hdr *headers, onMessage func([]byte) ([]byte, error)) ([]byte, error) {
	stopResumed := func() bool { return true }
	defer func() {
		stopResumed()
		t.pool.retire(pc)
	}()
	var body io.Reader = pc.br
	switch n := pc.hdr.ContentLength(); {
	case n == -1:
		body = &chunkedReader{br: pc.br}
	case n >= 0:
		body = io.LimitReader(pc.br, int64(n))
	}
	id := requestID(req)
	sr := newSSEReader(body, t.maxBody)
	resumes := 0
	for {
		data, err := sr.next()
		if err == io.EOF && hdr != nil && hdr.resumable && sr.lastID != "" && resumes < maxResumes {
			// A legacy server ended the stream early: resume it where it stopped.
			resumes++
			var next *pconn
			var stop func() bool
			if next, stop, err = t.resume(ctx, deadline, hdr, sr); err == nil {
				stopResumed()
				t.pool.retire(pc)
				pc, stopResumed = next, stop
				continue
			}
		}
		if err != nil {
			if err == io.EOF {
				if resumes >= maxResumes {
					return nil, fmt.Errorf("%w (%d)", ErrTooManyResumes, maxResumes)
				}
				return nil, fmt.Errorf("%w: the event stream ended before the response", ErrMalformed)
			}
			return nil, t.ioErr(ctx, deadline, "reading the event stream", err)
		}
		if isResponseTo(data, id) {
			return sr.take(data), nil // the response is the caller's: no copy
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
	pc, deadline, stop, err := t.exchange(ctx, msg, hdr)
	if err != nil {
		return err
	}
	defer stop()
	status := pc.hdr.StatusCode()
	body, reusable, err := t.readBody(pc)
	t.pool.release(pc, reusable && err == nil && stop())
	if err != nil {
		return t.ioErr(ctx, deadline, "reading the response", err)
	}
	if status < 200 || status >= 300 {
		if len(body) > 512 {
			body = body[:512]
		}
		return &HTTPError{Status: status, Body: body}
	}
	return nil
}

// sessionful reports whether a legacy server issued a session id.
func (t *httpTransport) sessionful() bool { return t.session.Load() != nil }

// serverStream runs a legacy session's standalone GET stream until ctx ends or the server
// ends or refuses it (405: the server has none): opened is called once the server accepted
// it; each message on it goes to onMessage, whose answer (to a request) is posted. It holds
// no pool slot while it runs. A stream the server ends at an event boundary returns nil.
func (t *httpTransport) serverStream(ctx context.Context, version string, opened func(), onMessage func([]byte) ([]byte, error)) error {
	hdr := &headers{version: version}
	pc, _, stop, err := t.exchange(ctx, nil, hdr)
	if err != nil {
		return err
	}
	defer stop()
	if pc.hdr.StatusCode() != 200 || !bytes.HasPrefix(pc.hdr.ContentType(), []byte("text/event-stream")) {
		status := pc.hdr.StatusCode()
		t.pool.release(pc, false)
		return &HTTPError{Status: status}
	}
	t.pool.release(nil, false)
	defer t.pool.retire(pc)
	runHook(&testHookStreamHead)
	_ = pc.nc.SetDeadline(time.Time{})
	opened()
	var body io.Reader = pc.br
	if pc.hdr.ContentLength() == -1 {
		body = &chunkedReader{br: pc.br}
	}
	sr := newSSEReader(body, t.maxBody)
	for {
		data, err := sr.next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err == io.EOF {
				return nil
			}
			return err
		}
		reply, err := onMessage(data)
		if err != nil {
			return err
		}
		if reply != nil {
			if err := t.notify(ctx, reply, hdr); err != nil {
				return err
			}
		}
	}
}

// maxResumes bounds the resumptions of one legacy request's event stream: ErrTooManyResumes.
const maxResumes = 5

// resume waits the stream's retry delay (1 s when none was given, never past the deadline),
// then reopens it with GET and Last-Event-ID, pointing sr at the new body. The returned
// connection is detached from the pool like any stream.
func (t *httpTransport) resume(ctx context.Context, deadline time.Time, hdr *headers, sr *sseReader) (*pconn, func() bool, error) {
	delay := time.Second
	if sr.retry >= 0 {
		delay = time.Duration(sr.retry) * time.Millisecond
	}
	if d := time.Until(deadline); delay > d {
		delay = d
	}
	timer := time.NewTimer(delay)
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
		return nil, nil, fmt.Errorf("client: resuming the event stream: %w", ctx.Err())
	}
	h := *hdr
	h.lastEventID = sr.lastID
	h.method, h.name, h.params = "", "", nil
	pc, _, stop, err := t.exchange(ctx, nil, &h)
	if err != nil {
		return nil, nil, err
	}
	if pc.hdr.StatusCode() != 200 || !bytes.HasPrefix(pc.hdr.ContentType(), []byte("text/event-stream")) {
		stop()
		status := pc.hdr.StatusCode()
		t.pool.release(pc, false)
		return nil, nil, fmt.Errorf("%w: %w", errResumeRefused, &HTTPError{Status: status})
	}
	t.pool.release(nil, false)
	var body io.Reader = pc.br
	if pc.hdr.ContentLength() == -1 {
		body = &chunkedReader{br: pc.br}
	}
	sr.br = bufio.NewReaderSize(body, 4096)
	return pc, stop, nil
}
