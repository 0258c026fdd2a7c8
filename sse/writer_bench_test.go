package sse

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// discardConn is a net.Conn-like destination: it discards writes and
// accepts deadlines, so benchmarks include the deadline cost of a hijacked
// connection.
type discardConn struct{}

func (discardConn) Write(p []byte) (int, error)      { return len(p), nil }
func (discardConn) SetWriteDeadline(time.Time) error { return nil }

// benchPayload returns a JSON-like payload of n bytes with lines line breaks
// (CRLF) spread through it.
func benchPayload(n, lines int) []byte {
	line := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p-9","progress":50,"total":100}}`
	var b bytes.Buffer
	for b.Len() < n {
		b.WriteString(line)
	}
	p := b.Bytes()[:n]
	for i := 1; i <= lines; i++ {
		at := i * n / (lines + 1)
		p[at-1], p[at] = '\r', '\n'
	}
	return p
}

var benchPayloads = []struct {
	name string
	data []byte
}{
	{"size=128B/lines=1", benchPayload(128, 0)},
	{"size=1KiB/lines=1", benchPayload(1<<10, 0)},
	{"size=1KiB/lines=16", benchPayload(1<<10, 15)},
	{"size=16KiB/lines=1", benchPayload(16<<10, 0)},
}

// benchDestinations are the two ways a transport hands a stream over: the
// *bufio.Writer of an HTTP server's body stream (fasthttp
// SetBodyStreamWriter, 4 KiB like its WriteBufferSize), and a hijacked
// connection with per-frame deadlines.
var benchDestinations = []struct {
	name string
	new  func(tb testing.TB) *Writer
}{
	{"dst=bufio", func(tb testing.TB) *Writer {
		w, err := NewWriter(bufio.NewWriterSize(io.Discard, 4096), nil, Config{})
		require.NoError(tb, err)
		return w
	}},
	{"dst=conn", func(tb testing.TB) *Writer {
		w, err := NewWriter(discardConn{}, nil, Config{})
		require.NoError(tb, err)
		return w
	}},
}

// runWriteEvent is the body of BenchmarkWriteEvent, checked by
// TestBenchmarkWriteEvent.
func runWriteEvent(tb testing.TB, w *Writer, data []byte) {
	if err := w.WriteEvent(data); err != nil {
		tb.Fatal(err)
	}
}

func BenchmarkWriteEvent(b *testing.B) {
	for _, d := range benchDestinations {
		for _, p := range benchPayloads {
			b.Run(d.name+"/"+p.name, func(b *testing.B) {
				w := d.new(b)
				b.ReportAllocs()
				b.SetBytes(int64(len(p.data)))
				for b.Loop() {
					runWriteEvent(b, w, p.data)
				}
			})
		}
	}
}

func TestBenchmarkWriteEvent(t *testing.T) {
	for _, p := range benchPayloads {
		t.Run(p.name, func(t *testing.T) {
			var out bytes.Buffer
			w, err := NewWriter(&out, nil, Config{})
			require.NoError(t, err)
			runWriteEvent(t, w, p.data)
			got := parseStream(out.Bytes())
			require.Len(t, got.Events, 1)
			assert.Equal(t, normalize(p.data), got.Events[0].Data)
			assert.Equal(t, strings.Count(string(p.data), "\n")+1, strings.Count(out.String(), "data: "))
		})
	}
}

func BenchmarkWriteKeepAlive(b *testing.B) {
	for _, d := range benchDestinations {
		b.Run(d.name, func(b *testing.B) {
			w := d.new(b)
			b.ReportAllocs()
			b.SetBytes(int64(len(keepAlive)))
			for b.Loop() {
				if err := w.WriteKeepAlive(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConcurrentWriters measures writers on separate streams in
// parallel, which contend only on the shared buffer pool.
func BenchmarkConcurrentWriters(b *testing.B) {
	for _, d := range benchDestinations {
		data := benchPayloads[1].data
		b.Run(d.name+"/"+benchPayloads[1].name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			b.RunParallel(func(pb *testing.PB) {
				w := d.new(b)
				for pb.Next() {
					if err := w.WriteEvent(data); err != nil {
						panic(fmt.Sprint(err))
					}
				}
			})
		})
	}
}
