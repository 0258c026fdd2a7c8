package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// maxWriteBytes is how much one write to Output carries at most, unless a single line is
// longer: a batch of lines is cut at line boundaries into writes of about this size, so that
// WriteTimeout bounds the progress of each write rather than the size of the batch.
const maxWriteBytes = 64 << 10

// deadlineWriter is an Output whose writes can be given a deadline.
type deadlineWriter interface {
	SetWriteDeadline(t time.Time) error
}

// output performs the writes to Output, each bounded by the write timeout: through the
// writer's own deadline when it has one, otherwise on a helper goroutine that output stops
// waiting for. It is used by one goroutine at a time (the connection's writer).
type output struct {
	w       io.Writer
	timeout time.Duration
	dl      deadlineWriter // nil: writes go through the helper

	// The helper, started on first use.
	req   chan []byte
	res   chan error
	timer *time.Timer
}

func newOutput(w io.Writer, timeout time.Duration) *output {
	o := &output{w: w, timeout: timeout}
	if dl, ok := w.(deadlineWriter); ok && dl.SetWriteDeadline(time.Time{}) == nil {
		o.dl = dl
	}
	return o
}

// write writes the complete lines in p, in writes of about maxWriteBytes cut at line
// boundaries. Any error is terminal: the caller must not call write again.
func (o *output) write(p []byte) error {
	for len(p) > 0 {
		n := len(p)
		if n > maxWriteBytes {
			if i := bytes.LastIndexByte(p[:maxWriteBytes], '\n'); i >= 0 {
				n = i + 1
			} else if i = bytes.IndexByte(p[maxWriteBytes:], '\n'); i >= 0 {
				n = maxWriteBytes + i + 1
			}
		}
		if err := o.writeOnce(p[:n]); err != nil {
			return err
		}
		p = p[n:]
	}
	return nil
}

func (o *output) writeOnce(p []byte) error {
	if o.dl != nil {
		if err := o.dl.SetWriteDeadline(time.Now().Add(o.timeout)); err != nil {
			return fmt.Errorf("stdio: setting the write deadline: %w", err)
		}
		err := writeAll(o.w, p)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("%w: %w", ErrWriteTimeout, err)
		}
		return err
	}
	if o.req == nil {
		o.req, o.res = make(chan []byte), make(chan error, 1)
		o.timer = time.NewTimer(o.timeout)
		go o.helper(o.req, o.res)
	} else {
		o.timer.Reset(o.timeout)
	}
	o.req <- p // the helper is idle: each write waits for the previous one
	select {
	case err := <-o.res:
		o.timer.Stop()
		return err
	case <-o.timer.C:
		// The helper stays blocked in Write until it returns; close lets it exit then.
		// Nothing is written after this, and the device is not closed.
		o.close()
		return ErrWriteTimeout
	}
}

// helper performs the writes handed to it until req is closed.
func (o *output) helper(req <-chan []byte, res chan<- error) {
	for p := range req {
		res <- writeAll(o.w, p) // res has room: the previous result was received
	}
}

// close stops the helper (after its current write, if one is blocked) and clears the
// deadline of a writer that has one, for whoever uses Output after Serve.
func (o *output) close() {
	if o.req != nil {
		close(o.req)
		o.req = nil
		o.timer.Stop()
	}
	if o.dl != nil {
		_ = o.dl.SetWriteDeadline(time.Time{})
	}
}

// writeAll writes p with one Write call, which the io.Writer contract requires to write all
// of p or return an error.
func writeAll(w io.Writer, p []byte) error {
	n, err := w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	return err
}
