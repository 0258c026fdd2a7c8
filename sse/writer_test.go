package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a plain io.Writer that records each Write call.
type recorder struct {
	bytes.Buffer
	writes  int
	flushes int // used by flushRecorder
}

func (r *recorder) Write(p []byte) (int, error) {
	r.writes++
	return r.Buffer.Write(p)
}

// flushRecorder is a recorder with a Flush() error method.
type flushRecorder struct{ recorder }

func (f *flushRecorder) Flush() error {
	f.flushes++
	return nil
}

// fakeConn records write deadlines and can fail writes and deadlines.
type fakeConn struct {
	recorder
	deadlines   []time.Time
	writeErr    error
	deadlineErr error
}

func (c *fakeConn) Write(p []byte) (int, error) {
	if c.writeErr != nil {
		return 0, c.writeErr
	}
	return c.recorder.Write(p)
}

func (c *fakeConn) SetWriteDeadline(t time.Time) error {
	c.deadlines = append(c.deadlines, t)
	return c.deadlineErr
}

// destinations returns a fresh Writer over each kind of destination, and a
// function returning what reached the destination's underlying writer.
func destinations(t *testing.T, cfg Config) map[string]func() (*Writer, func() string) {
	t.Helper()
	newW := func(dst io.Writer) *Writer {
		w, err := NewWriter(dst, nil, cfg)
		require.NoError(t, err)
		return w
	}
	return map[string]func() (*Writer, func() string){
		"bufio": func() (*Writer, func() string) {
			var out bytes.Buffer
			return newW(bufio.NewWriterSize(&out, 16)), out.String
		},
		"readwriter": func() (*Writer, func() string) {
			var out bytes.Buffer
			rw := bufio.NewReadWriter(bufio.NewReader(strings.NewReader("")), bufio.NewWriter(&out))
			return newW(rw), out.String
		},
		"plain": func() (*Writer, func() string) {
			var out recorder
			return newW(&out), out.String
		},
	}
}

var framingTests = []struct {
	name string
	data string
	wire string // what follows "event: message\n"
	back string // the data a client reads back
}{
	{"json", `{"jsonrpc":"2.0","id":1,"result":{}}`, `data: {"jsonrpc":"2.0","id":1,"result":{}}` + "\n\n", `{"jsonrpc":"2.0","id":1,"result":{}}`},
	{"empty", "", "data: \n\n", ""},
	{"LF", "a\nb", "data: a\ndata: b\n\n", "a\nb"},
	{"CRLF", "a\r\nb", "data: a\ndata: b\n\n", "a\nb"},
	{"lone CR", "a\rb", "data: a\ndata: b\n\n", "a\nb"},
	{"CR CRLF", "a\r\r\nb", "data: a\ndata: \ndata: b\n\n", "a\n\nb"},
	{"LF CR", "a\n\rb", "data: a\ndata: \ndata: b\n\n", "a\n\nb"},
	{"trailing LF", "a\n", "data: a\ndata: \n\n", "a\n"},
	{"trailing CR", "a\r", "data: a\ndata: \n\n", "a\n"},
	{"only CRLF", "\r\n", "data: \ndata: \n\n", "\n"},
	{"blank lines", "\n\n", "data: \ndata: \ndata: \n\n", "\n\n"},
	{"leading space", " a", "data:  a\n\n", " a"},
	{"injection attempt", "x\n\nevent: evil\ndata: y\nid: 9\nretry: 1\n: c", "data: x\ndata: \ndata: event: evil\ndata: data: y\ndata: id: 9\ndata: retry: 1\ndata: : c\n\n", "x\n\nevent: evil\ndata: y\nid: 9\nretry: 1\n: c"},
	{"pretty JSON", "{\r\n  \"a\": 1\r\n}", "data: {\ndata:   \"a\": 1\ndata: }\n\n", "{\n  \"a\": 1\n}"},
	{"NUL and non-ASCII", "\x00é\xff", "data: \x00é\xff\n\n", "\x00é\xff"},
}

func TestWriteEventFraming(t *testing.T) {
	for dname, newDst := range destinations(t, Config{}) {
		for _, tc := range framingTests {
			t.Run(dname+"/"+tc.name, func(t *testing.T) {
				w, out := newDst()
				require.NoError(t, w.WriteEvent([]byte(tc.data)))
				assert.Equal(t, "event: message\n"+tc.wire, out())

				got := parseStream([]byte(out()))
				assert.Equal(t, parsedStream{Events: []parsedEvent{{Type: "message", Data: tc.back}}}, got)
			})
		}
	}
}

func TestWriteEventLarge(t *testing.T) {
	// Larger than the pooled buffer, with line breaks on both sides of its
	// boundary.
	line := strings.Repeat("x", 1000)
	data := strings.Repeat(line+"\r\n", 9) + strings.Repeat("y", 3*pooledBufferBytes)
	want := "event: message\n" + strings.Repeat("data: "+line+"\n", 9) + "data: " + strings.Repeat("y", 3*pooledBufferBytes) + "\n\n"
	for dname, newDst := range destinations(t, Config{}) {
		t.Run(dname, func(t *testing.T) {
			w, out := newDst()
			require.NoError(t, w.WriteEvent([]byte(data)))
			require.NoError(t, w.WriteEvent([]byte("z")))
			assert.Equal(t, want+"event: message\ndata: z\n\n", out())
		})
	}
}

func TestWriteEventID(t *testing.T) {
	for dname, newDst := range destinations(t, Config{}) {
		t.Run(dname, func(t *testing.T) {
			w, out := newDst()
			require.NoError(t, w.WriteEventID("42", []byte("a")))
			require.NoError(t, w.WriteEventID("", []byte("b")))
			require.NoError(t, w.WriteEventID(" x:y", []byte("c")))
			for _, id := range []string{"1\n", "1\r", "\x00", "a\r\nid: 2"} {
				require.ErrorIs(t, w.WriteEventID(id, []byte("d")), ErrInvalidID, "id %q", id)
			}
			require.NoError(t, w.Err(), "an invalid id must not break the Writer")
			require.NoError(t, w.WriteEvent([]byte("e")))

			assert.Equal(t, "id: 42\nevent: message\ndata: a\n\n"+
				"id: \nevent: message\ndata: b\n\n"+
				"id:  x:y\nevent: message\ndata: c\n\n"+
				"event: message\ndata: e\n\n", out())
			assert.Equal(t, []parsedEvent{
				{Type: "message", ID: "42", HasID: true, Data: "a"},
				{Type: "message", ID: "", HasID: true, Data: "b"},
				{Type: "message", ID: " x:y", HasID: true, Data: "c"},
				{Type: "message", Data: "e"},
			}, parseStream([]byte(out())).Events)
		})
	}
}

func TestWriteKeepAlive(t *testing.T) {
	for dname, newDst := range destinations(t, Config{}) {
		t.Run(dname, func(t *testing.T) {
			w, out := newDst()
			require.NoError(t, w.WriteKeepAlive())
			require.NoError(t, w.WriteEvent([]byte("a")))
			require.NoError(t, w.WriteKeepAlive())
			assert.Equal(t, ": keepalive\n\nevent: message\ndata: a\n\n: keepalive\n\n", out())
			got := parseStream([]byte(out()))
			assert.Equal(t, []string{" keepalive", " keepalive"}, got.Comments)
			assert.Len(t, got.Events, 1)
		})
	}
}

func TestCustomEvent(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, nil, Config{Event: "update"})
	require.NoError(t, err)
	require.NoError(t, w.WriteEvent([]byte("a\nb")))
	assert.Equal(t, "event: update\ndata: a\ndata: b\n\n", out.String())
}

func TestFlushAfterEveryFrame(t *testing.T) {
	t.Run("bufio", func(t *testing.T) {
		var out bytes.Buffer
		bw := bufio.NewWriterSize(&out, 64<<10)
		w, err := NewWriter(bw, nil, Config{})
		require.NoError(t, err)
		require.NoError(t, w.WriteEvent([]byte("a")))
		assert.Zero(t, bw.Buffered())
		assert.Equal(t, "event: message\ndata: a\n\n", out.String())
		require.NoError(t, w.WriteKeepAlive())
		assert.Zero(t, bw.Buffered())
	})
	t.Run("plain, one Write per frame", func(t *testing.T) {
		var out recorder
		w, err := NewWriter(&out, nil, Config{})
		require.NoError(t, err)
		require.NoError(t, w.WriteEvent([]byte("a\nb\r\nc")))
		require.NoError(t, w.WriteKeepAlive())
		require.NoError(t, w.WriteEvent(bytes.Repeat([]byte("x"), pooledBufferBytes-64)))
		assert.Equal(t, 3, out.writes)
	})
	t.Run("plain with Flush", func(t *testing.T) {
		var out flushRecorder
		w, err := NewWriter(&out, nil, Config{})
		require.NoError(t, err)
		require.NoError(t, w.WriteEvent([]byte("a")))
		require.NoError(t, w.WriteKeepAlive())
		assert.Equal(t, 2, out.flushes)
		assert.Equal(t, 2, out.writes)
	})
}

func TestWriteDeadlines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{WriteTimeout: 3 * time.Second}

		// A destination with deadlines is used when none is passed.
		var conn fakeConn
		w, err := NewWriter(&conn, nil, cfg)
		require.NoError(t, err)
		t0 := time.Now()
		require.NoError(t, w.WriteEvent([]byte("a")))
		time.Sleep(10 * time.Second)
		require.NoError(t, w.WriteKeepAlive())
		require.NoError(t, w.WriteEventID("1", []byte("b")))
		assert.Equal(t, []time.Time{
			t0.Add(3 * time.Second),
			t0.Add(13 * time.Second),
			t0.Add(13 * time.Second),
		}, conn.deadlines)

		// A buffered destination over a connection: the deadline setter is
		// passed explicitly.
		var conn2 fakeConn
		w, err = NewWriter(bufio.NewWriter(&conn2), &conn2, Config{})
		require.NoError(t, err)
		require.NoError(t, w.WriteEvent([]byte("a")))
		assert.Equal(t, []time.Time{time.Now().Add(DefaultWriteTimeout)}, conn2.deadlines)
		assert.Equal(t, "event: message\ndata: a\n\n", conn2.String())

		// An explicit setter wins over the destination's own.
		var conn3, other fakeConn
		w, err = NewWriter(&conn3, &other, cfg)
		require.NoError(t, err)
		require.NoError(t, w.WriteEvent([]byte("a")))
		assert.Empty(t, conn3.deadlines)
		assert.Len(t, other.deadlines, 1)
	})
}

// TestWriteTimeoutStalledClient checks that a client that stops reading
// fails the write after exactly WriteTimeout, and breaks the Writer.
func TestWriteTimeoutStalledClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server, client := net.Pipe() // synchronous: a write waits for a reader
		defer client.Close()
		defer server.Close()

		w, err := NewWriter(server, nil, Config{WriteTimeout: 2 * time.Second})
		require.NoError(t, err)
		start := time.Now()
		err = w.WriteEvent([]byte("nobody reads this"))
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
		assert.Equal(t, 2*time.Second, time.Since(start))
		assert.ErrorIs(t, w.WriteKeepAlive(), os.ErrDeadlineExceeded)
		assert.ErrorIs(t, w.Err(), os.ErrDeadlineExceeded)
	})
}

func TestWriteTimeoutReadingClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		server, client := net.Pipe()
		defer client.Close()
		defer server.Close()
		done := make(chan []byte)
		go func() {
			b, _ := io.ReadAll(client)
			done <- b
		}()

		w, err := NewWriter(server, nil, Config{WriteTimeout: time.Second})
		require.NoError(t, err)
		for range 3 {
			time.Sleep(5 * time.Second) // longer than WriteTimeout between frames
			require.NoError(t, w.WriteEvent([]byte("a")))
		}
		require.NoError(t, server.Close())
		assert.Equal(t, strings.Repeat("event: message\ndata: a\n\n", 3), string(<-done))
	})
}

func TestStickyError(t *testing.T) {
	errGone := errors.New("connection closed")
	t.Run("write", func(t *testing.T) {
		conn := fakeConn{writeErr: errGone}
		w, err := NewWriter(&conn, nil, Config{})
		require.NoError(t, err)
		require.ErrorIs(t, w.WriteEvent([]byte("a")), errGone)
		conn.writeErr = nil // even if the destination recovers
		assert.ErrorIs(t, w.WriteEvent([]byte("b")), errGone)
		assert.ErrorIs(t, w.WriteEventID("1", []byte("b")), errGone)
		assert.ErrorIs(t, w.WriteKeepAlive(), errGone)
		assert.ErrorIs(t, w.Err(), errGone)
		assert.Empty(t, conn.String())
		assert.Len(t, conn.deadlines, 1)
	})
	t.Run("flush of a bufio.Writer", func(t *testing.T) {
		// As behind fasthttp's body stream: writes are buffered and the
		// departed client shows only as a Flush error.
		conn := fakeConn{writeErr: errGone}
		w, err := NewWriter(bufio.NewWriter(&conn), nil, Config{})
		require.NoError(t, err)
		require.ErrorIs(t, w.WriteKeepAlive(), errGone)
		assert.ErrorIs(t, w.WriteEvent([]byte("b")), errGone)
	})
	t.Run("deadline", func(t *testing.T) {
		conn := fakeConn{deadlineErr: net.ErrClosed}
		w, err := NewWriter(&conn, nil, Config{})
		require.NoError(t, err)
		require.ErrorIs(t, w.WriteEvent([]byte("a")), net.ErrClosed)
		conn.deadlineErr = nil
		assert.ErrorIs(t, w.WriteKeepAlive(), net.ErrClosed)
		assert.Empty(t, conn.String())
	})
	t.Run("short write", func(t *testing.T) {
		w, err := NewWriter(shortWriter{}, nil, Config{})
		require.NoError(t, err)
		assert.ErrorIs(t, w.WriteEvent([]byte("a")), io.ErrShortWrite)
	})
	t.Run("flush", func(t *testing.T) {
		w, err := NewWriter(failFlusher{}, nil, Config{})
		require.NoError(t, err)
		require.ErrorIs(t, w.WriteEvent([]byte("a")), errFlush)
		assert.ErrorIs(t, w.WriteEvent([]byte("a")), errFlush)
	})
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) / 2, nil }

var errFlush = errors.New("flush failed")

type failFlusher struct{}

func (failFlusher) Write(p []byte) (int, error) { return len(p), nil }
func (failFlusher) Flush() error                { return errFlush }

func TestConcurrentWrites(t *testing.T) {
	for dname, newDst := range destinations(t, Config{}) {
		t.Run(dname, func(t *testing.T) {
			w, out := newDst()
			const goroutines, each = 8, 50
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					for i := range each {
						data := fmt.Sprintf("g%d\ni%d\r\n%s", g, i, strings.Repeat("p", i*97))
						assert.NoError(t, w.WriteEvent([]byte(data)))
						if i%10 == 0 {
							assert.NoError(t, w.WriteKeepAlive())
						}
					}
				})
			}
			wg.Wait()

			got := parseStream([]byte(out()))
			assert.Empty(t, got.Ignored)
			assert.False(t, got.Rest)
			assert.Len(t, got.Comments, goroutines*each/10)
			require.Len(t, got.Events, goroutines*each)
			next := make([]int, goroutines) // per goroutine, events arrive in order
			for _, ev := range got.Events {
				var g, i int
				_, err := fmt.Sscanf(ev.Data, "g%d\ni%d\n", &g, &i)
				require.NoError(t, err, "%q", ev.Data)
				require.Equal(t, next[g], i)
				require.Equal(t, fmt.Sprintf("g%d\ni%d\n%s", g, i, strings.Repeat("p", i*97)), ev.Data)
				next[g]++
			}
		})
	}
}
