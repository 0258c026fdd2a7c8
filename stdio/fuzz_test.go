package stdio

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// chunkReader returns its data in reads of 1 to 256 bytes, sizes[i]+1 in turn, and then
// io.EOF for ever.
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n = int(r.sizes[r.i%len(r.sizes)]) + 1
		r.i++
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// FuzzFraming checks that the framer yields the same frames as the reference splitter,
// however the input is split into reads, and that it never holds more than the limit of a
// line.
func FuzzFraming(f *testing.F) {
	seeds := []string{
		"", "\n", "abc\n", "abc\r\ndef\r\n", "\ufeff{}\n", "a\n\ufeffb", "\xef\xbb\n",
		"   \n\t\r\n", "abcdefgh\nij\n", "abcdefghijklmnop\nq", "x\r\r\n", "{\"jsonrpc\":\"2.0\"}\n[]\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), []byte{1, 3, 0, 7}, uint8(8))
		f.Add([]byte(s), []byte(nil), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte, max uint8) {
		limit := int(max%64) + 1 // from one byte to four read buffers
		want := refFrames(data, limit)
		// A 16-byte read buffer (bufio's smallest) makes lines span chunks.
		got, err := readFramesSize(t, &chunkReader{data: data, sizes: sizes}, limit, 16)
		require.ErrorIs(t, err, io.EOF)
		require.Equal(t, want, got)
	})
}
