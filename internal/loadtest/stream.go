package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
)

// listenStream is one subscriptions/listen stream: a connection whose response is an event
// stream that stays open until the server completes it or the client goes away.
type listenStream struct {
	id   string // the listen request's id literal
	nc   net.Conn
	resp *fasthttp.Response
	r    *bufio.Reader // the decoded (de-chunked) body
	data []byte
}

// event is one server-sent event: a comment (keepalive) or a data event.
type event struct {
	comment bool
	data    []byte // valid until the next call of next
}

// listenBody is the params of a listen for tools/list_changed.
const listenParams = `"notifications":{"toolsListChanged":true}`

// openListen dials ep and opens a listen stream with the id literal id; it returns once the
// response head arrived (200 and text/event-stream) or with an error of a known kind.
// deadline bounds every read of the stream. wrap, if set, wraps the connection (to record
// what it reads).
func openListen(ctx context.Context, ep *endpoint, id string, deadline time.Time, wrap func(net.Conn) net.Conn) (*listenStream, string, error) {
	nc, err := ep.dial(ctx)
	if err != nil {
		k := kindOf(err, false)
		if k == KindHTTP {
			k = KindDial
		}
		return nil, k, err
	}
	if wrap != nil {
		nc = wrap(nc)
	}
	_ = nc.SetDeadline(deadline)
	var req fasthttp.Request
	ep.setHeaders(&req, "subscriptions/listen", "")
	req.SetBodyRaw(ep.requestBody(id, "subscriptions/listen", listenParams, ""))
	bw := bufio.NewWriterSize(nc, 1024)
	err = req.Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		_ = nc.Close()
		return nil, KindWrite, err
	}
	s := &listenStream{id: id, nc: nc, resp: &fasthttp.Response{}}
	s.resp.StreamBody = true
	if err := s.resp.Read(bufio.NewReaderSize(nc, 1024)); err != nil {
		_ = nc.Close()
		return nil, kindOf(err, false), err
	}
	if sc := s.resp.StatusCode(); sc != fasthttp.StatusOK {
		_ = nc.Close()
		return nil, KindStatusPrefix + strconv.Itoa(sc), fmt.Errorf("loadtest: listen answered %d", sc)
	}
	if !bytes.HasPrefix(s.resp.Header.ContentType(), []byte("text/event-stream")) {
		_ = nc.Close()
		return nil, KindContentType, errors.New("loadtest: listen did not answer an event stream")
	}
	s.r = bufio.NewReaderSize(s.resp.BodyStream(), 1024)
	return s, "", nil
}

// next returns the next comment or data event; io.EOF at the end of the stream.
func (s *listenStream) next() (event, error) {
	s.data = s.data[:0]
	inData := false
	for {
		line, err := s.r.ReadSlice('\n')
		if err != nil {
			if errors.Is(err, bufio.ErrBufferFull) {
				return event{}, errors.New("loadtest: event line too long")
			}
			if errors.Is(err, io.EOF) && inData {
				return event{data: s.data}, nil
			}
			return event{}, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if inData {
				return event{data: s.data}, nil
			}
		case line[0] == ':':
			if !inData {
				return event{comment: true, data: line}, nil
			}
		case bytes.HasPrefix(line, []byte("data:")):
			if inData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, bytes.TrimPrefix(line[5:], []byte(" "))...)
			inData = true
		}
	}
}

// close closes the connection, which ends a next in progress; it may be called from any
// goroutine, and more than once. (The body stream is left to the garbage collector:
// closing it would race with a reader.)
func (s *listenStream) close() { _ = s.nc.Close() }

// isAck tells whether data is the listen acknowledgement.
func isAck(data []byte) bool {
	return bytes.Contains(data, []byte(`"notifications/subscriptions/acknowledged"`))
}

// isListChanged tells whether data is a tools/list_changed notification.
func isListChanged(data []byte) bool {
	return bytes.Contains(data, []byte(`"notifications/tools/list_changed"`))
}

// isCompletion tells whether data is the stream's final response (its id and a result).
func isCompletion(data []byte, id string) bool {
	r, err := parseReply(data)
	return err == nil && string(r.id) == id && len(r.result) > 0 && r.result[0] == '{'
}

// callOnce sends one tools/call of tool with the arguments object args on a connection of
// its own, checking that the reply is a result. It is how scenarios trigger server events
// (the demo's toggle tool publishes tools/list_changed).
func callOnce(ctx context.Context, ep *endpoint, tool, args string, timeout time.Duration) error {
	c, err := dialConn(ctx, ep, timeout)
	if err != nil {
		return err
	}
	defer c.close()
	ep.setHeaders(&c.req, "tools/call", tool)
	c.id = append(c.id[:0], '1')
	c.req.SetBodyRaw(ep.requestBody("1", "tools/call", `"name":"`+tool+`","arguments":`+args, ""))
	if kind, _ := c.roundTrip(time.Now(), nil); kind != "" {
		return fmt.Errorf("loadtest: tools/call %s: %s", tool, kind)
	}
	return nil
}

// Check sends one echo call to t and checks the reply, as every scenario will: a quick way
// to tell that a target is up and speaks the expected dialect. For DialectLegacy it first
// performs the initialize-era handshake (initialize, which must negotiate 2025-11-25, and
// notifications/initialized, which must get 202), as a client of that era does before its
// calls; the scenarios' calls then carry only the MCP-Protocol-Version header, which is all a
// stateless server keeps of the handshake.
func Check(ctx context.Context, t Target) error {
	ep, err := t.parse()
	if err != nil {
		return err
	}
	c, err := dialConn(ctx, ep, 10*time.Second)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrTargetDown, err)
	}
	defer c.close()
	if t.Dialect == DialectLegacy {
		if err := c.handshake(time.Now()); err != nil {
			return fmt.Errorf("loadtest: %s does not serve %s: %w", t.label(), LegacyVersion, err)
		}
	}
	if kind, _ := c.call(time.Now(), 1); kind != "" {
		return fmt.Errorf("loadtest: %s answered the echo call wrongly: %s", t.label(), kind)
	}
	return nil
}
