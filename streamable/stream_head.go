package streamable

import "github.com/valyala/fasthttp"

// The head of every event stream the endpoint sends, besides status 200: one table, which
// each host writes in its own form.
const streamContentType = "text/event-stream"

// streamFields are the header fields of an event stream besides its Content-Type: no cache
// may keep it, and no proxy may buffer it (nginx reads X-Accel-Buffering).
var streamFields = [...][2]string{
	{"Cache-Control", "no-cache"},
	{"X-Accel-Buffering", "no"},
}

// streamHeader is streamFields as a Response's Header (shared: never modified).
var streamHeader = func() map[string]string {
	m := make(map[string]string, len(streamFields))
	for _, f := range streamFields {
		m[f[0]] = f[1]
	}
	return m
}()

// StreamHeader returns the header fields of an event stream's head, beside status 200, which
// a [Streamer] sends.
func StreamHeader() [][2]string {
	h := [][2]string{{"Content-Type", streamContentType}}
	return append(h, streamFields[:]...)
}

// setStreamHeaders sets an event stream's fields on a fasthttp response head.
func setStreamHeaders(h *fasthttp.ResponseHeader) {
	h.SetContentType(streamContentType)
	for _, f := range streamFields {
		h.Set(f[0], f[1])
	}
}

// streamHead is the whole response head of a listen stream on a hijacked connection. The
// body ends when the connection closes, so the stream needs no chunked framing and the
// connection is not reused.
var streamHead = func() []byte {
	b := []byte("HTTP/1.1 200 OK\r\nContent-Type: " + streamContentType + "\r\n")
	for _, f := range streamFields {
		b = append(b, f[0]+": "+f[1]+"\r\n"...)
	}
	return append(b, "Connection: close\r\n\r\n"...)
}()
