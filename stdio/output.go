package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync/atomic"
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
// writer's own deadline when it has one, otherwise by a watchdog timer that declares the
// write failed (onTimeout) while it is still blocked. It is used by one goroutine at a time
// (the connection's writer), which must stop writing after an error.
type output struct {
	w         io.Writer
	timeout   time.Duration
	dl        deadlineWriter // nil: writes are watched by the timer
	onTimeout func()         // called by the watchdog when a write overruns
	timer     *time.Timer    // the watchdog, created on first use
	expired   atomic.Bool    // the watchdog fired
}

func newOutput(w io.Writer, timeout time.Duration, onTimeout func()) *output {
	o := &output{w: w, timeout: timeout, onTimeout: onTimeout}
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
	// No deadline to set: the write runs here while the watchdog counts. When it fires, the
	// connection fails at once and Serve returns; this goroutine stays blocked in Write until
	// Write returns, and then writes nothing more.
	if o.timer == nil {
		o.timer = time.AfterFunc(o.timeout, o.expire)
	} else {
		o.timer.Reset(o.timeout)
	}
	err := writeAll(o.w, p)
	if !o.timer.Stop() || o.expired.Load() {
		return ErrWriteTimeout
	}
	return err
}

// expire runs on the watchdog timer.
func (o *output) expire() {
	o.expired.Store(true)
	o.onTimeout()
}

// close stops the watchdog and clears the deadline of a writer that has one, for whoever
// uses Output after Serve.
func (o *output) close() {
	if o.timer != nil {
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
