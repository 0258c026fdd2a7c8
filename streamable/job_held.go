package streamable

import (
	"errors"
	"runtime"

	"github.com/fastmcp-go/fastmcp/pool"
)

// The bounds of the log messages a request running inline holds for its answer.
const (
	maxHeldNotes = 64
	maxHeldBytes = 256 << 10
)

// ErrHeldNotesFull is what a handler's Log (or any notification) returns, and the message is
// dropped, when its request runs inline on the native listener's connection goroutine and has
// already held 64 notifications or 256 KiB of them for its answer (see "Initialize-era
// dialects" in the package doc).
var ErrHeldNotesFull = errors.New("streamable: too many notifications held for a request answered inline")

// heldNotes are the notifications of an inline run (a legacy request's log messages: the
// connection goroutine runs the handler and cannot write them meanwhile), kept in order for
// the answer, which is then an event stream: them, then the reply.
type heldNotes struct {
	buf  []byte
	ends []int // the end of each message in buf
}

func (h *heldNotes) add(msg []byte) error {
	if len(h.ends) >= maxHeldNotes || len(h.buf)+len(msg) > maxHeldBytes {
		return ErrHeldNotesFull
	}
	h.buf = append(h.buf, msg...)
	h.ends = append(h.ends, len(h.buf))
	return nil
}

func (h *heldNotes) len() int { return len(h.ends) }

// each calls fn with every held message, in order, until fn returns an error.
func (h *heldNotes) each(fn func([]byte) error) error {
	start := 0
	for _, end := range h.ends {
		if err := fn(h.buf[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// reset empties h, keeping its buffers unless they grew large.
func (h *heldNotes) reset() {
	if cap(h.buf) > 64<<10 {
		h.buf = nil
	}
	h.buf, h.ends = h.buf[:0], h.ends[:0]
}

// rearm readies a job whose run completed asking for a rerun (fastmcp.Reply.Rerun: it ran
// inline and needed to wait for the client) to be submitted again. It first waits for the
// executor to let go of the finished run, which it does right after Done returns, so that the
// run's hand-off of its outcome is over before it is reset.
func (j *job) rearm() {
	for j.refs.Load() > 1 {
		runtime.Gosched()
	}
	j.finished.Store(false)
	j.parked.Store(false)
	select {
	case <-j.done:
	default:
	}
	j.result, j.rerun, j.reply, j.rerr = pool.Result{}, false, j.reply[:0], nil
	j.held.reset()
}

// rerunDue reports whether the job's run completed asking for a rerun.
func (j *job) rerunDue() bool { return j.completed() && j.rerun } // rerun is Run's: read it only once Run is over

// cancelledByClient reports whether a notifications/cancelled withdrew the request before it
// finished: it gets no response at all.
func (j *job) cancelledByClient() bool { return j.withdrawn.Load() && !j.completed() }
