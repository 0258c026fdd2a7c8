package streamable

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/fastmcp-go/fastmcp/sse"
)

// serveListen takes a subscription slot and hands the connection to a stream goroutine that
// owns it from then on: the fasthttp worker is released, so an idle stream costs one
// goroutine, a timer and the subscription itself.
func (s *Server) serveListen(ctx *fasthttp.RequestCtx, j *job) {
	ep := s.ep
	release, err := ep.exec.Slots().Acquire(context.Background())
	if err != nil {
		s.writeError(ctx, errSubscriptions, j.msg.ID().Raw())
		j.release()
		return
	}
	// The stream runs on its own goroutine over the listener's connection, and the hijack
	// handler returns at once: fasthttp then drops its request context and its read buffer
	// (MaxHeaderBytes large) instead of holding them for the stream's life.
	nc := ctx.Conn() // the stream writes through it: c, or TLS over c
	c := connOf(nc)
	// The connection's header index points into the request context, which fasthttp recycles
	// with the request's body buffer (kept at its largest size): the stream must not pin it.
	c.headers = headerSet{}
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(net.Conn) {
		go func() {
			defer c.Close()
			defer release()
			defer j.release()
			s.runListen(c, nc, j)
		}()
	})
}

// runListen serves one listen stream on a hijacked connection until the subscription ends
// (the completion response is the last event), the client goes away (a failed write), or
// the drain window closes it. It writes through nc, which is c or a TLS connection over it.
func (s *Server) runListen(c, nc net.Conn, j *job) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.streams.add(c, cancel)
	defer s.streams.remove(c)
	s.ep.serveStream(ctx, j, &rawStream{nc: nc, ep: s.ep})
}

// rawStream is a listen stream's host on a connection the native listener hijacked: it
// writes the response head itself.
type rawStream struct {
	nc net.Conn
	ep *endpoint
}

func (r *rawStream) openStream() (*sse.Writer, error) {
	_ = r.nc.SetWriteDeadline(time.Now().Add(r.ep.cfg.WriteTimeout))
	if _, err := r.nc.Write(streamHead); err != nil {
		return nil, err
	}
	return sse.NewWriter(r.nc, r.nc, r.ep.sseConfig())
}

func (r *rawStream) respondJSON(status int, body []byte) {
	_ = r.nc.SetWriteDeadline(time.Now().Add(r.ep.cfg.WriteTimeout))
	_ = writeJSONResponse(r.nc, status, body)
}

// writeJSONResponse writes a whole JSON response on a hijacked connection, which is closed
// after it (Connection: close).
func writeJSONResponse(c net.Conn, status int, body []byte) error {
	head := make([]byte, 0, 128)
	head = append(head, "HTTP/1.1 "...)
	head = strconv.AppendInt(head, int64(status), 10)
	head = append(head, ' ')
	head = append(head, http.StatusText(status)...)
	head = append(head, "\r\nContent-Type: application/json\r\nContent-Length: "...)
	head = strconv.AppendInt(head, int64(len(body)), 10)
	head = append(head, "\r\nConnection: close\r\n\r\n"...)
	_, err := (&net.Buffers{head, body}).WriteTo(c)
	return err
}
