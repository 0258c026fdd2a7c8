package loadtest

import (
	"bytes"
	"strconv"
)

// maxFrameHead bounds the head of a response the epoll engine frames itself; maxFrameBody
// its body. A response past either is malformed for a load test of echo calls.
const (
	maxFrameHead = 16 << 10
	maxFrameBody = 16 << 20
)

// frame is one HTTP/1.1 response framed out of the bytes read from a connection.
type frame struct {
	size   int // bytes of the response, head and body
	status int
	ctype  []byte
	body   []byte
	closes bool // Connection: close
}

// frameResponse frames the first response in b: ok false while it is incomplete, kind
// KindHTTP when b does not start with a response framed by Content-Length (a chunked or
// close-delimited body, a bad head, a size past the bounds). The frame's slices alias b.
func frameResponse(b []byte) (f frame, ok bool, kind string) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		if len(b) > maxFrameHead {
			return f, false, KindHTTP
		}
		return f, false, ""
	}
	head := b[:end]
	line, rest, _ := bytes.Cut(head, []byte("\r\n"))
	if !bytes.HasPrefix(line, []byte("HTTP/1.")) || len(line) < 12 || line[8] != ' ' {
		return f, false, KindHTTP
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil || status < 100 {
		return f, false, KindHTTP
	}
	f.status = status
	length := -1
	for len(rest) > 0 {
		var h []byte
		h, rest, _ = bytes.Cut(rest, []byte("\r\n"))
		name, value, found := bytes.Cut(h, []byte(":"))
		if !found {
			return f, false, KindHTTP
		}
		value = bytes.TrimSpace(value)
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 || n > maxFrameBody || length >= 0 && n != length {
				return f, false, KindHTTP
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			return f, false, KindHTTP
		case bytes.EqualFold(name, []byte("Content-Type")):
			f.ctype = value
		case bytes.EqualFold(name, []byte("Connection")):
			f.closes = bytes.Contains(bytes.ToLower(value), []byte("close"))
		}
	}
	if length < 0 {
		return f, false, KindHTTP
	}
	f.size = end + 4 + length
	if len(b) < f.size {
		return f, false, ""
	}
	f.body = b[end+4 : f.size]
	return f, true, ""
}
