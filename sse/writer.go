package sse

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"time"
)

// DeadlineSetter sets the deadline for future writes. It is implemented by
// net.Conn, *os.File and *http.ResponseController.
type DeadlineSetter interface {
	SetWriteDeadline(t time.Time) error
}

// flusher is a destination that buffers and must be flushed after each frame,
// for example a compressing writer or an adapter over
// http.ResponseController.
type flusher interface {
	Flush() error
}

// Frame pieces. defaultPrefix is the start of an event with [DefaultEvent],
// kept as a constant so that the default configuration allocates nothing per
// Writer.
const (
	defaultPrefix = "event: " + DefaultEvent + "\ndata: "
	keepAlive     = ": keepalive\n\n"
)

// pooledBufferBytes is the size of the buffers borrowed by Writers whose
// destination is not a *bufio.Writer. A frame larger than this is written
// in several Write calls, so an event of any size needs no more memory.
// It is also the most a stalled write can pin per stream.
const pooledBufferBytes = 4 << 10

var bufferPool = sync.Pool{
	New: func() any { return bufio.NewWriterSize(nil, pooledBufferBytes) },
}

// Writer writes Server-Sent Events (text/event-stream) to one stream.
//
// Every frame (event or comment) is written whole, flushed, and bounded by
// the write deadline, so a frame on the wire is never followed by a partial
// one. After any write error the Writer is broken: every later call returns
// that first error and writes nothing, because the stream may end in the
// middle of a frame.
//
// It is safe to call Writer methods from concurrently running goroutines;
// frames are not interleaved.
type Writer struct {
	// Immutable after NewWriter.
	bw           *bufio.Writer  // the destination when it is a *bufio.Writer
	w            io.Writer      // the destination otherwise, written through a pooled buffer
	fl           flusher        // w's Flush, if it has one
	dl           DeadlineSetter // nil when WriteTimeout cannot be enforced
	prefix       string         // "event: <type>\ndata: "
	keepAlive    time.Duration
	writeTimeout time.Duration

	mu   sync.Mutex
	err  error     // first write error; sticky. Guarded by mu.
	last time.Time // when the last frame was written, or NewWriter ran. Guarded by mu.
}

// NewWriter returns a Writer that writes events to w.
//
// When w is a *bufio.Writer (or a *bufio.ReadWriter), frames are written
// into it and it is flushed after each frame; the Writer keeps no buffer of
// its own. Any other w receives each frame through a buffer borrowed from a
// shared pool for the duration of the write, in one Write call for frames
// up to 4 KiB; if w also has a Flush() error method, it is called after
// each frame.
//
// d, if not nil, receives a write deadline of now plus
// [Config.WriteTimeout] before each frame. If d is nil and w implements
// [DeadlineSetter] (a net.Conn does), w is used. Otherwise writes are not
// bounded by the Writer.
//
// NewWriter returns an error wrapping [ErrInvalidConfig] if cfg is invalid.
// It panics if w is nil.
func NewWriter(w io.Writer, d DeadlineSetter, cfg Config) (*Writer, error) {
	if w == nil {
		panic("sse: NewWriter called with a nil io.Writer")
	}
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	sw := &Writer{
		last:         time.Now(),
		dl:           d,
		prefix:       defaultPrefix,
		keepAlive:    cfg.KeepAliveInterval,
		writeTimeout: cfg.WriteTimeout,
	}
	if cfg.Event != DefaultEvent {
		sw.prefix = "event: " + cfg.Event + "\ndata: "
	}
	switch v := w.(type) {
	case *bufio.Writer:
		sw.bw = v
	case *bufio.ReadWriter:
		sw.bw = v.Writer
	default:
		sw.w = w
		sw.fl, _ = w.(flusher)
	}
	if sw.dl == nil {
		sw.dl, _ = w.(DeadlineSetter)
	}
	return sw, nil
}

// WriteEvent writes one event whose data is data, then flushes:
//
//	event: message
//	data: <data>
//
// Data with line breaks (LF, CRLF or a lone CR) is split into one "data:"
// line per line, so a client sees every break as LF and data can never end
// the event or start another. Data should be UTF-8: the stream is decoded as
// UTF-8 by clients. WriteEvent does not retain data.
func (w *Writer) WriteEvent(data []byte) error {
	return w.write(false, "", data, false)
}

// WriteEventID is like [Writer.WriteEvent] but first writes an "id:" line
// with id; an empty id writes "id: " which, per the SSE specification,
// clears the client's last event id. It returns [ErrInvalidID], writing
// nothing, if id contains CR, LF or NUL.
func (w *Writer) WriteEventID(id string, data []byte) error {
	if !validField(id) {
		return ErrInvalidID
	}
	return w.write(true, id, data, false)
}

// WriteKeepAlive writes the comment frame ": keepalive\n\n", which clients
// ignore, then flushes. It keeps proxies from closing an idle stream and,
// because a write to a departed client fails, detects disconnects.
func (w *Writer) WriteKeepAlive() error {
	return w.write(false, "", nil, true)
}

// lastFrame returns when the last frame was started (or the Writer made).
func (w *Writer) lastFrame() time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.last
}

// Err returns the error that broke the Writer, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// write writes and flushes one frame under the write deadline.
func (w *Writer) write(hasID bool, id string, data []byte, comment bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.last = time.Now()
	if w.dl != nil {
		if err := w.dl.SetWriteDeadline(w.last.Add(w.writeTimeout)); err != nil {
			w.err = err
			return err
		}
	}
	bw := w.bw
	if bw == nil {
		bw = bufferPool.Get().(*bufio.Writer)
		bw.Reset(w.w)
	}
	if comment {
		bw.WriteString(keepAlive)
	} else {
		w.encodeEvent(bw, hasID, id, data)
	}
	// bufio errors are sticky: Flush reports any error of the writes above.
	err := bw.Flush()
	if w.bw == nil {
		bw.Reset(nil) // do not keep w.w reachable from the pool
		bufferPool.Put(bw)
		if err == nil && w.fl != nil {
			err = w.fl.Flush()
		}
	}
	if err != nil {
		w.err = err
	}
	return err
}

// encodeEvent writes one event frame to bw. It splits data at LF, CRLF and
// lone CR, the three line endings of the SSE specification, writing each
// line as its own "data:" line. Every field value therefore contains no CR
// or LF and the frame ends at its blank line, whatever data holds.
//
// It keeps the next CR and next LF positions and searches again only for
// the one consumed, so both searches use the vectorised bytes.IndexByte
// and data is scanned once.
func (w *Writer) encodeEvent(bw *bufio.Writer, hasID bool, id string, data []byte) {
	if hasID {
		bw.WriteString("id: ")
		bw.WriteString(id)
		bw.WriteByte('\n')
	}
	bw.WriteString(w.prefix)
	n := len(data)
	nextLF := indexFrom(data, 0, '\n')
	nextCR := indexFrom(data, 0, '\r')
	start := 0
	for {
		end := min(nextLF, nextCR)
		bw.Write(data[start:end])
		if end == n {
			break
		}
		bw.WriteString("\ndata: ")
		if data[end] == '\n' {
			start = end + 1
			nextLF = indexFrom(data, start, '\n')
			continue
		}
		start = end + 1
		if start < n && data[start] == '\n' { // CRLF is one line ending
			start++
			nextLF = indexFrom(data, start, '\n')
		}
		nextCR = indexFrom(data, start, '\r')
	}
	bw.WriteString("\n\n")
}

// indexFrom returns the index of the first c in b at or after from, or
// len(b) if there is none.
func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return len(b)
}
