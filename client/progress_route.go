package client

import (
	"encoding/json"
	"strconv"
	"sync"
)

// progressCalls routes progress by token, whichever stream carries it: a sessionful
// initialize-era server may send a call's progress on the session's GET stream instead of
// the call's own (the TypeScript client routes by token too). A call made WithProgress is
// registered for as long as it runs; its token is its request id.
type progressCalls struct {
	mu    sync.Mutex
	calls map[int64]*progressCall
}

// progressCall is one registered call. mu orders its callbacks, from any stream, and
// ended stops them once the call has returned.
type progressCall struct {
	mu    sync.Mutex
	o     *callOpts
	ended bool
}

// add registers the call with token id.
func (p *progressCalls) add(id int64, o *callOpts) *progressCall {
	pc := &progressCall{o: o}
	p.mu.Lock()
	if p.calls == nil {
		p.calls = map[int64]*progressCall{}
	}
	p.calls[id] = pc
	p.mu.Unlock()
	return pc
}

// remove ends the call with token id: no callback of it runs after remove returns.
func (p *progressCalls) remove(id int64, pc *progressCall) {
	p.mu.Lock()
	delete(p.calls, id)
	p.mu.Unlock()
	pc.mu.Lock()
	pc.ended = true
	pc.mu.Unlock()
}

// deliver hands params (a notifications/progress) to the call its integer token names,
// if one runs.
func (c *Client) deliverProgress(token []byte, params []byte) {
	id, err := strconv.ParseInt(string(token), 10, 64)
	if err != nil {
		return
	}
	c.progress.mu.Lock()
	pc := c.progress.calls[id]
	c.progress.mu.Unlock()
	if pc == nil {
		return
	}
	pc.run(c, params)
}

// run delivers one progress notification to the call, unless it has ended.
func (pc *progressCall) run(c *Client, params []byte) {
	var p Progress
	if json.Unmarshal(params, &p) != nil {
		return
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if pc.ended {
		return
	}
	if pc.o.progressed != nil {
		pc.o.progressed()
	}
	c.callProgress(pc.o.progress, p)
}
