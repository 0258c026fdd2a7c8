package stdio

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/pool"
)

const (
	// maxPendingBytes is how many bytes of lines may wait for the writer before the reader
	// stops reading input (backpressure from a slow client to its own requests).
	maxPendingBytes = 1 << 20
	// maxKeptBytes is the largest write buffer kept for reuse.
	maxKeptBytes = 4 * maxWriteBytes
)

// conn is one stdio connection: a reader goroutine that frames, decodes and admits lines, the
// executor that runs requests, a goroutine per subscriptions/listen stream, and one writer
// goroutine that writes complete lines in the order they were put.
//
// One mutex guards the connection's state, the in-flight table, the state of every job and
// the pending lines, so that deciding a request's last word and queueing its line are one
// step: nothing is written for a request after its response, its cancellation or its
// timeout.
type conn struct {
	h   handler
	dec *decode.Decoder
	ex  *pool.Executor
	set settings
	in  io.Reader
	out *output

	// ctx is the parent of every stream's context: cancelling it closes subscriptions.
	ctx    context.Context
	cancel context.CancelCauseFunc
	// jobCtx is the submitter context of every request: Serve's values, but no
	// cancellation, so that the executor has nothing to watch per job. When serving stops,
	// stop cancels the requests in flight one by one.
	jobCtx context.Context

	inputEnded chan struct{} // closed when reading stops (end of input, executor closed, stop)
	drained    chan struct{} // closed when reading stopped and no work is left
	stopped    chan struct{} // closed when output stops for good (stopErr is set)
	readerDone chan struct{}
	writerDone chan struct{}
	listens    sync.WaitGroup // running listen goroutines
	events     sync.WaitGroup // the running events goroutine of an initialize-era state

	mu         sync.Mutex
	inflight   idTable // admitted requests and open streams by id, until their last word
	active     int     // jobs awaiting their outcome and listen goroutines running
	openListen int     // listen streams admitted and not yet ended or cancelled
	reading    bool    // lines are still admitted
	isDrained  bool
	stopErr    error // why output stopped for good; nil while it runs
	readErr    error // a read error that ended the input
	execErr    error // the executor was closed under the connection
	legacy     legacyState
	// settling is set while an admitted initialize-era initialize or logging/setLevel awaits
	// its outcome: the lines after it wait, so that they see the state it produces.
	settling bool

	// mustSettle is the reader's own: it admitted a request that sets settling, and has not
	// yet seen it cleared. It keeps waitForSpace's common case free of the lock.
	mustSettle bool

	// halted is set once reading stopped or output stopped (reading false or stopErr set);
	// backlog is len(pending). Both let the reader check for room without the lock.
	halted  atomic.Bool
	backlog atomic.Int64

	// The lines waiting for the writer (guarded by mu).
	pending    []byte
	batch      chan struct{} // closed once the pending lines are written; nil until wanted
	closing    bool          // no more lines: the writer writes what is pending and exits
	writerIdle bool
	writable   sync.Cond // the writer waits for lines
	space      sync.Cond // the reader waits for pending to drop below maxPendingBytes, or for settling to clear
}

func newConn(ctx context.Context, h handler, dec *decode.Decoder, ex *pool.Executor, in io.Reader, out io.Writer, set settings) *conn {
	c := &conn{
		h:          h,
		dec:        dec,
		ex:         ex,
		set:        set,
		in:         in,
		inputEnded: make(chan struct{}),
		drained:    make(chan struct{}),
		stopped:    make(chan struct{}),
		readerDone: make(chan struct{}),
		writerDone: make(chan struct{}),
		inflight:   newIDTable(),
		reading:    true,
	}
	c.out = newOutput(out, set.writeTimeout, func() { c.fail(ErrWriteTimeout) })
	c.ctx, c.cancel = context.WithCancelCause(ctx)
	c.jobCtx = context.WithoutCancel(ctx)
	c.legacy.client = h.Stateless(0) // nothing negotiated yet: the server's default level
	c.writable.L = &c.mu
	c.space.L = &c.mu
	return c
}

// put queues line (without its newline) for the writer. With a job, it first checks that
// the job has not had its last word; final makes line that last word (or, with an empty
// line, ends the job silently) and frees its id. A line that is not final comes with a
// channel closed once it is written (a notification's acknowledgement).
func (c *conn) put(line []byte, j *job, final bool) (written <-chan struct{}, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.putLocked(line, j, final)
}

// putLocked is put with c.mu held.
func (c *conn) putLocked(line []byte, j *job, final bool) (written <-chan struct{}, err error) {
	if j != nil {
		if j.state != statePending {
			return nil, errRequestDone
		}
		if final {
			j.state = stateAnswered
			c.forgetLocked(j)
		}
	}
	if c.stopErr != nil || c.closing {
		return nil, errOutputClosed
	}
	if len(line) == 0 {
		return nil, nil
	}
	c.pending = append(c.pending, line...)
	c.pending = append(c.pending, '\n')
	c.backlog.Store(int64(len(c.pending)))
	if !final {
		if c.batch == nil {
			c.batch = make(chan struct{})
		}
		written = c.batch
	}
	if c.writerIdle {
		c.writerIdle = false
		c.writable.Signal()
	}
	return written, nil
}

// writeLoop is the only goroutine that writes to Output. It takes every pending line at
// once and writes them, so lines are never interleaved and a slow write batches the lines
// that arrive meanwhile.
func (c *conn) writeLoop() {
	defer close(c.writerDone)
	defer c.out.close()
	var buf []byte
	for {
		c.mu.Lock()
		woken := false
		for len(c.pending) == 0 && !c.closing && c.stopErr == nil {
			c.writerIdle = true
			c.writable.Wait()
			woken = true
		}
		c.writerIdle = false
		if woken && len(c.pending) < maxWriteBytes && c.inflight.size() > c.openListen {
			// Woken by the first line while other requests are in flight: let the
			// goroutines already runnable (workers finishing requests read in the same
			// batch) add theirs before the write. Alone, the line goes out at once.
			c.mu.Unlock()
			runtime.Gosched()
			c.mu.Lock()
		}
		if c.stopErr != nil || len(c.pending) == 0 {
			c.mu.Unlock()
			return
		}
		buf, c.pending = c.pending, buf[:0]
		c.backlog.Store(0)
		batch := c.batch
		c.batch = nil
		c.space.Broadcast()
		c.mu.Unlock()

		if err := c.out.write(buf); err != nil {
			c.fail(err) // a no-op when the watchdog failed the connection already
			return
		}
		if batch != nil {
			close(batch)
		}
		if cap(buf) > maxKeptBytes {
			buf = nil
		}
	}
}

// fail stops the connection after a write error or timeout. Only the first failure counts.
func (c *conn) fail(err error) {
	if !errors.Is(err, ErrWriteTimeout) {
		err = fmt.Errorf("stdio: writing output: %w", err)
	}
	if c.stop(err) {
		c.set.log.Error("stdio: output failed; serving stops", "err", err)
	}
}

// stop ends serving for good: nothing more is written, every request and stream is
// cancelled (queued requests never run). The first reason wins; stop reports whether it
// was this one.
func (c *conn) stop(err error) bool {
	var keys []pool.Key
	c.mu.Lock()
	first := c.stopErr == nil
	if first {
		c.stopErr = err
		c.halted.Store(true)
		close(c.stopped)
		c.writable.Broadcast()
		c.space.Broadcast()
		c.inflight.each(func(j *job) {
			if !j.listen && j.state == statePending {
				keys = append(keys, j.pkey)
			}
		})
	}
	c.mu.Unlock()
	c.cancel(err)
	// Newest first: the queued jobs are the newest, and cancelling them before the running
	// ones keeps a worker that frees up from starting one.
	slices.SortFunc(keys, func(a, b pool.Key) int { return cmp.Compare(b.Owner, a.Owner) })
	for _, k := range keys {
		c.ex.Cancel(k, err)
	}
	return first
}

// stopping reports whether serving has stopped for good.
func (c *conn) stopping() bool {
	select {
	case <-c.stopped:
		return true
	default:
		return false
	}
}

// closeOutput lets the writer finish the pending lines and exit.
func (c *conn) closeOutput() {
	c.mu.Lock()
	c.closing = true
	c.writable.Broadcast()
	c.mu.Unlock()
}

// waitForSpace waits while too many lines wait for the writer, and while the request
// before the next line changes the connection's state and has no outcome yet (the input is
// ordered: the next line must be classified in the state it produces). It reports whether
// lines are still admitted.
func (c *conn) waitForSpace() bool {
	if !c.mustSettle && !c.halted.Load() && c.backlog.Load() < maxPendingBytes {
		return true // the common case, without the lock
	}
	c.mustSettle = false
	c.mu.Lock()
	defer c.mu.Unlock()
	for (len(c.pending) >= maxPendingBytes || c.settling) && c.reading && c.stopErr == nil {
		c.space.Wait()
	}
	return c.reading && c.stopErr == nil
}

// stopReadingLocked stops admitting lines. c.mu must be held.
func (c *conn) stopReadingLocked() {
	if c.reading {
		c.reading = false
		c.halted.Store(true)
		close(c.inputEnded)
		c.space.Broadcast()
	}
	c.checkDrainedLocked()
}

// endedLocked counts the end of a job (its outcome) or of a listen goroutine. c.mu must be
// held.
func (c *conn) endedLocked() {
	c.active--
	c.checkDrainedLocked()
}

func (c *conn) checkDrainedLocked() {
	if !c.reading && c.active == 0 && !c.isDrained {
		c.isDrained = true
		close(c.drained)
	}
}

// forgetLocked frees the id of j, which has had its last word. c.mu must be held.
func (c *conn) forgetLocked(j *job) {
	c.inflight.remove(j.id, j)
	if j.listen {
		c.openListen--
	}
}

// executorDown stops reading after the executor was closed under the connection: the
// admitted requests are answered, then Serve returns.
func (c *conn) executorDown(err error) {
	c.mu.Lock()
	if c.execErr == nil {
		c.execErr = err
		c.set.log.Error("stdio: the executor was closed; serving stops", "err", err)
	}
	c.stopReadingLocked()
	c.mu.Unlock()
}

// closeListens ends every open stream without a final reply, and the initialize-era
// notifications.
func (c *conn) closeListens() {
	c.stopEvents()
	var cancels []context.CancelFunc
	c.mu.Lock()
	var streams []*job
	c.inflight.each(func(j *job) {
		if j.listen && j.state == statePending {
			streams = append(streams, j)
		}
	})
	for _, j := range streams { // not while iterating: forgetLocked deletes
		j.state = stateCancelled
		c.forgetLocked(j)
		cancels = append(cancels, j.lcancel)
	}
	c.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
}

// waitListens waits for the listen goroutines, which return promptly once their context
// is cancelled, but not longer than one write timeout for a stream that ignores it.
func (c *conn) waitListens() {
	done := make(chan struct{})
	go func() {
		c.listens.Wait()
		c.events.Wait()
		close(done)
	}()
	t := time.NewTimer(c.set.writeTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		c.set.log.Warn("stdio: a subscriptions/listen handler ignores its cancellation")
	}
}
