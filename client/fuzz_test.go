package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/fastmcp-go/fastmcp/decode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSSEReader(t *testing.T) {
	in := ": keep-alive\r\n\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\nid: 7\ndata: x\ndata: y\nretry: 10\n\ndata:z\n\n"
	sr := newSSEReader(bytes.NewBufferString(in), 64)
	for _, want := range []string{`{"a":1}`, "x\ny", "z"} {
		got, err := sr.next()
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
	_, err := sr.next()
	assert.ErrorIs(t, err, io.EOF)

	// A data line longer than the reader's buffer, in CRLF, beside fields and comments.
	long := strings.Repeat("v", 10000)
	sr = newSSEReader(bytes.NewBufferString("id: e1\r\n: "+strings.Repeat("c", 5000)+"\r\ndata: "+long+"\r\ndata\r\nretry: 5\r\n\r\n"), 1<<14)
	got, err := sr.next()
	require.NoError(t, err)
	assert.Equal(t, long+"\n", string(got))
	assert.Equal(t, "e1", sr.lastID)
	assert.Equal(t, 5, sr.retry)

	_, err = newSSEReader(bytes.NewBufferString("data: 0123456789\n\n"), 8).next()
	assert.ErrorIs(t, err, ErrResponseTooLarge)
	_, err = newSSEReader(bytes.NewBufferString("data: partial"), 64).next()
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestChunkedReader(t *testing.T) {
	b, err := io.ReadAll(&chunkedReader{br: bufio.NewReader(bytes.NewBufferString("3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nTrailer: x\r\n\r\n"))})
	require.NoError(t, err)
	assert.Equal(t, "abc0123456789", string(b))
	for _, bad := range []string{"zz\r\n", "3\r\nabcX\r\n", "3\r\nab", "\r\n", "1000000000000000\r\n"} {
		_, err := io.ReadAll(&chunkedReader{br: bufio.NewReader(bytes.NewBufferString(bad))})
		assert.Error(t, err, "%q", bad)
	}
}

// FuzzSSEReader: any input ends in events within the bound or an error; never a panic.
func FuzzSSEReader(f *testing.F) {
	f.Add([]byte("data: {}\n\n"), 16)
	f.Add([]byte(":c\r\ndata:a\r\ndata:b\r\n\r\n"), 4)
	f.Add(bytes.Repeat([]byte("x"), 5000), 100)
	f.Add(append(append([]byte("id: 1\r\ndata: "), bytes.Repeat([]byte("y"), 9000)...), "\r\ndata: z\n\n"...), 1<<14)
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max <= 0 || max > 1<<16 {
			return
		}
		sr := newSSEReader(bytes.NewReader(in), max)
		for range len(in) + 1 {
			d, err := sr.next()
			if err != nil {
				return
			}
			if len(d) > max || cap(d) > max {
				t.Fatalf("event of %d bytes (buffer %d) over the bound %d", len(d), cap(d), max)
			}
		}
		t.Fatal("more events than input bytes")
	})
}

// FuzzChunkedReader: decoding never panics and never yields more bytes than it read.
func FuzzChunkedReader(f *testing.F) {
	f.Add([]byte("3\r\nabc\r\n0\r\n\r\n"))
	f.Add([]byte("ffffffffffffff\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		b, err := io.ReadAll(&chunkedReader{br: bufio.NewReaderSize(bytes.NewReader(in), 16)})
		if len(b) > len(in) {
			t.Fatalf("decoded %d bytes from %d", len(b), len(in))
		}
		_ = errors.Is(err, errBadChunk)
	})
}

// FuzzParseResponse: the response reader accepts or refuses any bytes without panicking.
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"x","data":{"supported":["2026-07-28"]}}}`))
	c := &Client{}
	c.dec = mustDecoder()
	f.Fuzz(func(t *testing.T, in []byte) {
		r, err := c.parseResponse(in, []byte("1"))
		if err == nil && r.err == nil && r.result == nil {
			t.Fatal("no result, no error")
		}
	})
}

// mustDecoder is a decoder with the default response bound, for tests and fuzzing.
func mustDecoder() *decode.Decoder {
	d, err := decode.New(decode.Limits{MaxMessageBytes: DefaultMaxResponseBytes})
	if err != nil {
		panic(err)
	}
	return d
}
