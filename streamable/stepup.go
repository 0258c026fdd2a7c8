package streamable

import "github.com/fastmcp-go/fastmcp/fastmcp"

// replyResponse is the response of a job that completed with a reply: its JSON-RPC body, or
// for an initialize-era refusal that Config.StepUp answers, that HTTP response.
func (ep *endpoint) replyResponse(j *job) Response {
	if r, ok := ep.stepUpResponse(j); ok {
		return r
	}
	return withSession(j, Response{Status: j.status(), ContentType: "application/json", Body: j.reply})
}

// stepUpResponse is Config.StepUp's answer to a job's initialize-era refusal, if any.
func (ep *endpoint) stepUpResponse(j *job) (Response, bool) {
	// A dialect whose headers mirror the body was refused by the gate already.
	if j.rerr == nil || j.rules.MirroredHeaders || ep.cfg.StepUp == nil {
		return Response{}, false
	}
	g := ep.stepUp(j.rerr)
	if g == nil {
		return Response{}, false
	}
	return Response{Status: g.Status, ContentType: g.ContentType, Header: g.Header, Body: g.Body}, true
}

// stepUp calls Config.StepUp, a panic in it keeping the JSON-RPC error.
func (ep *endpoint) stepUp(e *fastmcp.Error) (g *GateResponse) {
	defer func() {
		if v := recover(); v != nil {
			ep.cfg.Logger.Error("streamable: StepUp panicked", "panic", v)
			g = nil
		}
	}()
	return ep.cfg.StepUp(e)
}
