package streamable

import (
	"github.com/fastmcp-go/fastmcp/sse"
)

// pumpProgress writes a request's event stream once its first notification has arrived on a
// fasthttp body stream: that notification, those that follow, then the reply (or the error of
// an outcome that produced none, such as the timeout the executor reports at the request's
// deadline) as the last event. A failed write is the client gone: cancel stops the request and
// the pump waits for its outcome. Progress never extends the request's deadline.
func (ep *endpoint) pumpProgress(sw *sse.Writer, j *job, first []byte, done <-chan struct{}, cancel func()) {
	j.ack <- sw.WriteEvent(first)
	for {
		select {
		case note := <-j.notes:
			err := sw.WriteEvent(note)
			j.ack <- err
			if err != nil {
				cancel()
				ep.stats.disconnects.Add(1)
				<-done
				return
			}
		case <-done:
			j.settled()
			if j.completed() && j.reply != nil {
				_ = sw.WriteEvent(j.reply)
			} else if e := outcomeError(j.result); !e.noBody {
				if e == errRequestTimeout {
					ep.stats.reqTimeouts.Add(1)
				}
				_ = sw.WriteEvent(e.appendBody(nil, j.msg.ID().Raw()))
			}
			return
		}
	}
}
