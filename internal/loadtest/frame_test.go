package loadtest

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFrameResponse(t *testing.T) {
	const whole = "HTTP/1.1 200 OK\r\nserver: s\r\ncontent-type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	f, ok, kind := frameResponse([]byte(whole + "HTTP/1.1"))
	assert.True(t, ok)
	assert.Empty(t, kind)
	assert.Equal(t, len(whole), f.size, "the next response's bytes are not this one's")
	assert.Equal(t, 200, f.status)
	assert.Equal(t, "application/json", string(f.ctype))
	assert.Equal(t, "{}", string(f.body))
	assert.False(t, f.closes)

	for _, incomplete := range []string{"", "HTTP/1.1 200 OK\r\n", whole[:len(whole)-1]} {
		_, ok, kind := frameResponse([]byte(incomplete))
		assert.False(t, ok, incomplete)
		assert.Empty(t, kind, "%q is only incomplete", incomplete)
	}

	f, ok, _ = frameResponse([]byte("HTTP/1.1 503 Service Unavailable\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n"))
	assert.True(t, ok)
	assert.Equal(t, 503, f.status)
	assert.True(t, f.closes)

	for _, bad := range []string{
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
		"SMTP 220 hello\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(maxFrameBody+1) + "\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: " + string(bytes.Repeat([]byte("a"), maxFrameHead)) + "\r\n",
	} {
		_, ok, kind := frameResponse([]byte(bad))
		assert.False(t, ok)
		assert.Equal(t, KindHTTP, kind, "%.60q", bad)
	}
}

// FuzzFrameResponse: the framer reads whatever a server sends; it never panics, and a frame
// it returns lies within the bytes, its body as long as its Content-Length says.
func FuzzFrameResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.0 404 x\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
		"\r\n\r\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, ok, kind := frameResponse(b)
		if !ok {
			return
		}
		if kind != "" || fr.size > len(b) || fr.status < 100 || fr.status > 999 {
			t.Fatalf("frame %+v (kind %q) of %q", fr, kind, b)
		}
		head := bytes.Index(b, []byte("\r\n\r\n"))
		if head+4+len(fr.body) != fr.size || !bytes.Equal(b[head+4:fr.size], fr.body) {
			t.Fatalf("body %q of frame size %d in %q", fr.body, fr.size, b)
		}
	})
}
