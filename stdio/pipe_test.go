package stdio

import (
	"io"
	"sync"
)

// bufPipe is an in-memory pipe with a buffer, as an OS pipe has: Write blocks only while
// the buffer is full, and Read returns what is buffered. io.Pipe, by contrast, hands each
// Write to a Read synchronously, which makes a benchmark measure the hand-off.
type bufPipe struct {
	mu       sync.Mutex
	readable sync.Cond
	writable sync.Cond
	buf      []byte // buffered bytes: buf[r:w]
	r, w     int
	closed   bool // the write end is closed: Read returns io.EOF once drained
	rclosed  bool // the read end is closed: Write fails
}

const bufPipeBytes = 64 << 10

// newBufPipe returns the read and write ends of a buffered in-memory pipe.
func newBufPipe() (io.ReadCloser, io.WriteCloser) {
	p := &bufPipe{buf: make([]byte, bufPipeBytes)}
	p.readable.L = &p.mu
	p.writable.L = &p.mu
	return pipeReader{p}, pipeWriter{p}
}

type pipeReader struct{ p *bufPipe }

type pipeWriter struct{ p *bufPipe }

func (r pipeReader) Read(b []byte) (int, error) {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.r == p.w && !p.closed && !p.rclosed {
		p.readable.Wait()
	}
	if p.rclosed {
		return 0, io.ErrClosedPipe
	}
	if p.r == p.w {
		return 0, io.EOF
	}
	n := copy(b, p.buf[p.r:p.w])
	p.r += n
	if p.r == p.w {
		p.r, p.w = 0, 0
	}
	p.writable.Broadcast()
	return n, nil
}

func (r pipeReader) Close() error {
	p := r.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rclosed = true
	p.writable.Broadcast()
	p.readable.Broadcast()
	return nil
}

func (w pipeWriter) Write(b []byte) (int, error) {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for len(b) > 0 {
		if p.closed || p.rclosed {
			return n, io.ErrClosedPipe
		}
		if p.w == len(p.buf) && p.r > 0 { // compact
			p.w = copy(p.buf, p.buf[p.r:p.w])
			p.r = 0
		}
		if p.w == len(p.buf) {
			p.writable.Wait()
			continue
		}
		k := copy(p.buf[p.w:], b)
		p.w += k
		n += k
		b = b[k:]
		p.readable.Broadcast()
	}
	return n, nil
}

func (w pipeWriter) Close() error {
	p := w.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.readable.Broadcast()
	return nil
}
