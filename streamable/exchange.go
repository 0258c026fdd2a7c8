package streamable

import (
	"context"
	"errors"
	"time"

	"github.com/fastmcp-go/fastmcp/sse"
)

// exchangeHost is one HTTP host's side of the exchange loop (endpoint.exchange): how it
// answers, and how it tells that its client went away. The native listener, the fasthttp
// mount and the hosts of Endpoint.Execute (net/http among them) each have one, kept in the
// job so that handing it over costs no allocation.
type exchangeHost interface {
	// respond sends a whole response.
	respond(r Response)
	// stream sends the head of an event stream and has pump write its events, now or once
	// the host's handler has returned (fasthttp writes a body stream after it), which it
	// reports: the host then lets go of the job once pump has returned. err is set when the
	// head could not be sent. It is called at most once, and pump exactly once.
	stream(pump func(sw *sse.Writer, err error)) (later bool)
	// abandon ends the request with no response at all: the connection closes.
	abandon()
	// looks returns the channel on which the loop asks look again (nil: the host never
	// looks); look reports whether the client went away, and may start a watch whose
	// channel gone then returns.
	looks() <-chan struct{}
	look() (gone bool)
	// gone returns a channel closed once the client has gone away (nil: none to wait on).
	gone() <-chan struct{}
	// unwatch ends a watch of the connection before the host writes on it, and reports
	// whether the client went away meanwhile.
	unwatch() (gone bool)
	// cancel stops the job's work (the client went away).
	cancel()
}

var errDisconnected = errors.New("streamable: client disconnected")

// exchange answers a job the executor has through h: with its reply or error as JSON, or,
// once the handler sends a notification (progress, a log message, a request to the
// client), with an event stream of them that ends with the reply; with nothing at all
// when the client goes away first (the work is cancelled) or withdrew the request. The
// executor enforces RequestTimeout, whose outcome ends the request as any other. It
// reports whether the job went to a stream written after the handler returns, which then
// lets go of it; otherwise the caller does, once the response is sent.
func (ep *endpoint) exchange(j *job, h exchangeHost) (handedOff bool) {
	done := j.awaitDone()
	gone := h.gone()
	for {
		select {
		case <-done:
			if j.rerunDue() { // an inline run that needs to wait for the client
				if !ep.rerun(j, h) {
					return false
				}
				done = j.awaitDone()
				continue
			}
			if h.unwatch() {
				ep.stats.disconnects.Add(1) // it finished all the same: the real outcome
			}
			ep.answer(j, h)
			return false
		case first := <-j.notes:
			if h.unwatch() { // the host owns the connection again before the stream starts
				h.cancel()
				ep.stats.disconnects.Add(1)
				j.ack <- errDisconnected
				h.abandon()
				return false
			}
			return h.stream(func(sw *sse.Writer, err error) {
				if err != nil {
					j.ack <- err
					h.cancel()
					ep.stats.disconnects.Add(1)
					<-done
					return
				}
				ep.pumpProgress(sw, j, first, done, h.cancel)
			})
		case <-h.looks():
			if h.look() {
				ep.leave(j, h)
				return false
			}
			gone = h.gone()
		case <-gone:
			ep.leave(j, h)
			return false
		}
	}
}

// leave ends a request whose client went away: its work is cancelled and nothing is sent.
func (ep *endpoint) leave(j *job, h exchangeHost) {
	h.unwatch()
	h.cancel()
	j.settled()
	ep.stats.disconnects.Add(1)
	h.abandon()
}

// rerun submits again, to a worker, a job whose inline run completed asking for a rerun
// (it needs to wait for the client, which the connection's goroutine cannot). It reports
// false when the executor refused it, having answered with the refusal.
func (ep *endpoint) rerun(j *job, h exchangeHost) bool {
	ep.stats.inlineReruns.Add(1)
	j.rearm()
	if err := j.submit(context.Background(), j.key); err != nil {
		ep.respond(h, errorResponse(submitError(err), j.msg.ID().Raw()))
		return false
	}
	return true
}

// answer answers with the job's outcome: nothing at all, the connection closed, for a
// request its client withdrew; the reply (or Config.StepUp's answer to it), or the error of
// an outcome that produced none; an event stream, sent whole, when an inline run held
// notifications for the answer.
func (ep *endpoint) answer(j *job, h exchangeHost) {
	j.settled()
	switch {
	case j.cancelledByClient():
		h.abandon()
	case j.held.len() > 0:
		h.respond(ep.heldResponse(j))
	case j.completed() && j.reply != nil:
		h.respond(ep.replyResponse(j))
	default:
		e := outcomeError(j.result)
		if e == errRequestTimeout {
			ep.stats.reqTimeouts.Add(1)
		}
		ep.respond(h, errorResponse(e, j.msg.ID().Raw()))
	}
}

// respond sends r through h, counting the refusal it carries.
func (ep *endpoint) respond(h exchangeHost, r Response) {
	ep.refused.count(r.refused)
	h.respond(r)
}

// heldResponse is the answer of an inline run that held notifications: an event stream of
// them, then the reply (or the error of an outcome that produced none) as the last event.
// The whole stream is known, so it goes out as one body.
func (ep *endpoint) heldResponse(j *job) Response {
	j.stream = j.stream[:0]
	sw, _ := sse.NewWriter(&j.stream, nil, sse.Config{})
	_ = j.held.each(sw.WriteEvent)
	if j.completed() && j.reply != nil {
		_ = sw.WriteEvent(j.reply)
	} else if e := outcomeError(j.result); !e.noBody {
		_ = sw.WriteEvent(e.appendBody(nil, j.msg.ID().Raw()))
	}
	return withSession(j, Response{Status: 200, ContentType: streamContentType, Header: streamHeader, Body: j.stream})
}

// eventBuffer collects an event stream sent whole.
type eventBuffer []byte

func (b *eventBuffer) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// peerWatch is the look of a host that asks its Peer every probeInterval whether the
// client went away (the mount, and Endpoint.Execute's hosts).
type peerWatch struct {
	peer   Peer
	probe  *probeTimer
	probes <-chan struct{}
}

// begin starts asking peer, with the job's timer; without a peer, the watch never looks.
func (w *peerWatch) begin(peer Peer, t *probeTimer) {
	w.peer, w.probe = peer, t
	if peer != nil {
		w.probes = t.start()
	}
}

func (w *peerWatch) looks() <-chan struct{} { return w.probes }

func (w *peerWatch) look() bool {
	if w.peer.Gone() {
		return true
	}
	w.probe.again()
	return false
}

func (w *peerWatch) unwatch() bool {
	if w.probes != nil {
		w.probe.stop()
		w.probes = nil
	}
	return false
}

// probeTimer wakes the exchange loop of a host that probes its Peer. It belongs to a job
// and is made once for all the requests the job serves, so probing allocates nothing.
type probeTimer struct {
	t  *time.Timer
	ch chan struct{}
}

// start arms the timer for the first probe.
func (p *probeTimer) start() <-chan struct{} {
	if p.t == nil {
		p.ch = make(chan struct{}, 1)
		p.t = time.AfterFunc(probeInterval, p.fire)
	} else {
		p.t.Reset(probeInterval)
	}
	return p.ch
}

func (p *probeTimer) fire() {
	select {
	case p.ch <- struct{}{}:
	default:
	}
}

// again arms the timer for the next probe.
func (p *probeTimer) again() { p.t.Reset(probeInterval) }

// stop disarms the timer and drains a wake-up nobody took. (One that fires as it stops
// only makes the next request ask its peer once early.)
func (p *probeTimer) stop() {
	p.t.Stop()
	select {
	case <-p.ch:
	default:
	}
}
