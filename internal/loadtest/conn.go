package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// DefaultTimeout bounds one request when a scenario's Timeout is zero.
const DefaultTimeout = 10 * time.Second

// dialTimeout bounds opening one connection.
const dialTimeout = 5 * time.Second

// conn is one keep-alive connection driven by one goroutine. It writes requests and reads
// responses with fasthttp's own request and response codecs over a buffered net.Conn, so a
// scenario knows exactly which connection a request used, when it was refused, closed or
// cut, and pays no pool or per-request deadline overhead.
type conn struct {
	ep   *endpoint
	nc   net.Conn
	br   *bufio.Reader
	bw   *bufio.Writer
	req  fasthttp.Request
	resp fasthttp.Response
	body []byte
	id   []byte // the id literal of the request in flight
	// deadline is the connection deadline last set; it is pushed forward only when less than
	// half the timeout remains, so most requests set none.
	deadline time.Time
	timeout  time.Duration
	known    known // the last reply that passed the full check
}

// dialConn opens a connection to ep; timeout bounds each request on it.
func dialConn(ctx context.Context, ep *endpoint, timeout time.Duration) (*conn, error) {
	nc, err := ep.dial(ctx)
	if err != nil {
		return nil, err
	}
	c := &conn{ep: ep, nc: nc, timeout: timeout}
	c.br = bufio.NewReaderSize(nc, 8<<10)
	c.bw = bufio.NewWriterSize(nc, 4<<10)
	ep.setHeaders(&c.req, "tools/call", ep.t.Tool)
	return c, nil
}

// setHeaders prepares req as a POST to ep with the dialect's mirrored headers.
func (ep *endpoint) setHeaders(req *fasthttp.Request, method, name string) {
	req.Header.SetMethod(fasthttp.MethodPost)
	req.SetRequestURI(ep.path)
	req.Header.SetHost(ep.host)
	req.Header.SetContentType("application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(HeaderProtocolVersion, ep.t.Dialect.String())
	if ep.t.Session != "" {
		req.Header.Set(HeaderSession, ep.t.Session)
	}
	if ep.t.Dialect == Dialect2026 {
		req.Header.Set(HeaderMethod, method)
		if name != "" {
			req.Header.Set(HeaderName, name)
		}
	}
}

func (c *conn) close() { _ = c.nc.Close() }

// extend pushes the connection deadline forward when less than half the timeout remains.
func (c *conn) extend(now time.Time) {
	if c.deadline.Sub(now) < c.timeout/2 {
		c.deadline = now.Add(c.timeout)
		_ = c.nc.SetDeadline(c.deadline)
	}
}

// call sends one echo tools/call with id and checks its reply. It returns "" on success or
// the error kind; fatal tells that the connection is unusable.
func (c *conn) call(now time.Time, id int64) (kind string, fatal bool) {
	c.body = c.ep.appendCall(c.body[:0], id)
	c.id = strconv.AppendInt(c.id[:0], id, 10)
	c.req.SetBodyRaw(c.body)
	return c.roundTrip(now, c.ep.text)
}

// roundTrip writes c.req and reads and checks the response against c.id and text.
func (c *conn) roundTrip(now time.Time, text []byte) (kind string, fatal bool) {
	if kind, fatal = c.exchange(now, &c.req); kind != "" {
		return kind, fatal
	}
	if sc := c.resp.StatusCode(); sc != fasthttp.StatusOK {
		return KindStatusPrefix + strconv.Itoa(sc), fatal
	}
	body, kind := c.replyBody()
	if kind != "" {
		return kind, fatal
	}
	return c.known.check(body, c.id, text), fatal
}

// exchange writes req and reads its response into c.resp. It returns "" or the error kind
// of a failed write or read (fatal then), and whether the server closes the connection.
func (c *conn) exchange(now time.Time, req *fasthttp.Request) (kind string, fatal bool) {
	c.extend(now)
	if err := req.Write(c.bw); err != nil {
		return kindOf(err, false), true
	}
	if err := c.bw.Flush(); err != nil {
		k := kindOf(err, false)
		if k == KindHTTP {
			k = KindWrite
		}
		return k, true
	}
	c.resp.Reset()
	if err := c.resp.Read(c.br); err != nil {
		return kindOf(err, c.br.Buffered() > 0), true
	}
	return "", c.resp.ConnectionClose()
}

// replyBody returns the JSON-RPC message of c.resp: its body, or the last event of an event
// stream; else the error kind.
func (c *conn) replyBody() ([]byte, string) {
	return replyOf(c.resp.Header.ContentType(), c.resp.Body())
}

// replyOf returns the JSON-RPC message of a response with content type ct and body: the
// body, or the last event of an event stream; else the error kind.
func replyOf(ct, body []byte) ([]byte, string) {
	switch {
	case bytes.HasPrefix(ct, []byte("application/json")):
	case bytes.HasPrefix(ct, []byte("text/event-stream")):
		if body, _ = lastEvent(body); body == nil {
			return nil, KindNoEvent
		}
	default:
		return nil, KindContentType
	}
	return body, ""
}

// lastEvent returns the data of the last event of a complete text/event-stream body (the
// response that ends a request-scoped stream) and the number of events with data.
func lastEvent(body []byte) (data []byte, events int) {
	var cur []byte
	inEvent := false
	for len(body) > 0 {
		line := body
		if i := bytes.IndexByte(body, '\n'); i >= 0 {
			line, body = body[:i], body[i+1:]
		} else {
			body = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		switch {
		case len(line) == 0:
			if inEvent {
				data = cur
				events++
				inEvent = false
			}
		case bytes.HasPrefix(line, []byte("data:")):
			// Multi-line data never occurs in a JSON-RPC message (the encoder escapes
			// newlines), so the last data line of an event is its data.
			cur = bytes.TrimPrefix(line[5:], []byte(" "))
			inEvent = true
		}
	}
	if inEvent {
		data = cur
		events++
	}
	return data, events
}
