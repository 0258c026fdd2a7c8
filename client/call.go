package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Progress is one notifications/progress update for a call.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// CallOption adjusts one call.
type CallOption func(*callOpts)

type callOpts struct {
	progress func(Progress)
	// progressed restarts the call's timeout (Config.ResetTimeoutOnProgress); nil otherwise.
	progressed func()
	// tasks declares the tasks extension in this request's _meta (tasks*.go): a tools/call
	// may then answer with a task, and tasks/* requests need it.
	tasks bool
	// round, when set, makes a modern MRTR request one exchange (input_round.go).
	round *InputRound
	// log receives the call's log messages at logLevel or above (call_log.go).
	log      func(LogMessage)
	logLevel string
	// trace holds the _meta members of WithTraceContext (call_trace.go).
	trace []byte
}

// WithProgress asks the server for progress on this call and calls fn for each update, in
// order, on the goroutine reading the response.
func WithProgress(fn func(Progress)) CallOption {
	return func(o *callOpts) { o.progress = fn }
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// mrtrMethods may answer input_required (2026-07-28 §MRTR); other methods never do.
func mrtrMethod(method string) bool {
	return method == "tools/call" || method == "prompts/get" || method == "resources/read"
}

// request sends method with params members (object members without braces) and returns its
// result, fulfilling MRTR rounds with the configured handlers. The result is owned.
func (c *Client) request(ctx context.Context, method string, members []byte, hdr *headers, o *callOpts) ([]byte, error) {
	if c.closed.Load() {
		return nil, ErrClosed
	}
	relayed := o != nil && o.round != nil && c.modern && mrtrMethod(method)
	if relayed {
		members = o.round.appendRound(members)
	}
	res, err := c.send(ctx, method, members, hdr, o)
	for round := 0; !relayed && err == nil && c.modern && mrtrMethod(method) && resultTypeIs(res, "input_required"); round++ {
		if round >= c.cfg.MaxInputRounds {
			return nil, fmt.Errorf("%w (%d)", ErrTooManyRounds, c.cfg.MaxInputRounds)
		}
		var extra []byte
		if extra, err = c.fulfil(ctx, res); err != nil {
			return nil, err
		}
		// The retry repeats the request with the responses and the exact state, under a new id.
		retry := make([]byte, 0, len(members)+len(extra)+1)
		retry = append(retry, members...)
		if len(members) > 0 {
			retry = append(retry, ',')
		}
		retry = append(retry, extra...)
		res, err = c.send(ctx, method, retry, hdr, o)
	}
	if err == nil && resultTypeIs(res, "task") && !taskAllowed(c.modern, method, o) {
		return nil, fmt.Errorf("%w: %s answered with a task (resultType \"task\"), which only a tools/call declaring the tasks extension may get", ErrMalformed, method)
	}
	return res, err
}

// send performs one exchange under a new id; a -32022 naming a version this client speaks is
// retried once with it, even the version just sent (the conformance suite's request-metadata
// rejects a first request whatever it carries and expects exactly this retry).
//
// On a sessionful legacy HTTP connection, a 404 (the server does not know the session: it
// restarted, or expired it) starts a new session with initialize, and the request is sent
// once more in it: the 404 answered the POST itself, so the server never ran the request,
// tools/call included. A request whose event stream broke and whose resumption was then
// refused is not sent again, as it may have run; the session is renewed for the next one.
func (c *Client) send(ctx context.Context, method string, members []byte, hdr *headers, o *callOpts) ([]byte, error) {
	gen, inSession := c.sessionGen()
	res, err := c.sendOnce(ctx, method, members, hdr, o)
	if inSession && sessionLost(err) {
		if rerr := c.renewSession(ctx, gen); rerr != nil {
			return nil, errors.Join(err, rerr)
		}
		if errors.Is(err, errResumeRefused) {
			return nil, err
		}
		return c.sendOnce(ctx, method, members, hdr, o)
	}
	if err != nil && c.modern {
		if v := retryVersion(err); v != "" {
			c.setVersion(v)
			if hdr != nil {
				hdr.version = v
			}
			return c.sendOnce(ctx, method, members, hdr, o)
		}
	}
	return res, err
}

// retryVersion is the version a -32022 err names to retry with ("" for any other error).
// Apart from send, so that the *Error errors.As needs is allocated on this error path only.
func retryVersion(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code == CodeUnsupportedVersion {
		return pickVersion(e.Data)
	}
	return ""
}

func (c *Client) sendOnce(ctx context.Context, method string, members []byte, hdr *headers, o *callOpts) (_ []byte, err error) {
	lg, err := c.newCallLog(o)
	if err != nil {
		return nil, err
	}
	defer lg.end()
	id := c.nextID.Add(1)
	bp := bufPool.Get().(*[]byte)
	var progress int64
	if o != nil && o.progress != nil {
		progress = id
	}
	meta := c.meta()
	if o != nil && o.tasks {
		meta = c.taskMeta()
	}
	if o != nil && c.modern && (o.round != nil && o.round.Capabilities != nil || lg != nil) {
		caps := c.caps
		if o.round != nil && o.round.Capabilities != nil {
			caps = []byte(o.round.Capabilities)
		}
		level := c.hookLevel()
		if lg != nil {
			level = lg.level
		}
		meta = c.callMeta.get(c, c.currentVersion(), caps, o.tasks, level)
	}
	if o != nil {
		meta = withMetaMembers(meta, o.trace)
	}
	req := appendRequest((*bp)[:0], id, method, members, meta, progress)
	if hdr == nil {
		hdr = &headers{}
	}
	hdr.logs = lg != nil
	if progress > 0 && c.cfg.ResetTimeoutOnProgress {
		var pt *progressTimer
		ctx, pt = newProgressTimer(ctx, c.cfg.RequestTimeout)
		defer pt.stop()
		o.progressed = pt.reset
		hdr.timeout = c.cfg.MaxTotalTimeout
		defer func() { err = pt.err(ctx, err) }()
	}
	if progress > 0 {
		// After o.progressed is set: the registry's lock orders it before any delivery.
		pc := c.progress.add(progress, o)
		defer c.progress.remove(progress, pc)
	}
	hdr.version = c.currentVersion()
	if c.modern {
		hdr.method = method
	} else {
		hdr.resumable = true
	}
	raw, err := c.t.roundTrip(ctx, req, hdr, func(msg []byte) ([]byte, error) {
		return c.onMessage(ctx, msg, lg)
	})
	idb := requestID(req)
	*bp = req[:0]
	if err != nil {
		err = c.rpcError(err, idb)
		bufPool.Put(bp)
		abandoned := ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
		if abandoned && (!c.modern || !c.t.cancelsByClose()) {
			c.cancelRemote(id)
		}
		return nil, err
	}
	r, perr := c.parseResponse(raw, idb)
	bufPool.Put(bp)
	if perr != nil {
		return nil, perr
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.result, nil
}

// cancelRemote tells the server to stop request id (legacy, or a transport that cannot cancel
// by closing). Best effort, bounded by a short timeout of its own.
func (c *Client) cancelRemote(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params := `{"requestId":` + strconv.FormatInt(id, 10) + `,"reason":"cancelled by the client"}`
	msg := appendNotification(nil, "notifications/cancelled", []byte(params))
	_ = c.t.notify(ctx, msg, &headers{version: c.currentVersion()})
}

// onMessage handles what the server sends before a response: progress and log notifications,
// and (legacy) requests for input, whose response it returns. lg, when set, takes the log
// messages (a call made WithLog, on its own stream).
func (c *Client) onMessage(ctx context.Context, msg []byte, lg *callLog) ([]byte, error) {
	m := msgPool.Get().(*decode.Message)
	defer msgPool.Put(m)
	if err := c.dec.Decode(m, msg); err != nil {
		c.cfg.Logger.Warn("client: ignoring a malformed message from the server", "err", err)
		return nil, nil
	}
	method := string(m.Method().Text())
	switch m.Kind() {
	case decode.KindNotification:
		if method == "notifications/message" && lg != nil {
			lg.deliver(c, m.Params().Raw())
			return nil, nil
		}
		if method != "notifications/progress" {
			c.notified(method, m.Params().Raw())
			return nil, nil
		}
		// By token, from whichever stream carried it: this call's, another's, or a session's
		// GET stream.
		if tok := decode.Lookup(m.Params().Raw(), "progressToken"); tok.Type() == decode.TypeInteger {
			c.deliverProgress(tok.Raw(), m.Params().Raw())
		}
		return nil, nil
	case decode.KindRequest:
		id := m.ID().Raw()
		result, err := c.answer(ctx, method, m.Params().Raw())
		if err != nil {
			code := int64(-32603)
			var e *Error
			if errors.As(err, &e) {
				code = e.Code
			} else if errors.Is(err, ErrNoHandler) {
				code = CodeMethodNotFound
			}
			return decode.AppendError(nil, id, code, err.Error(), nil, false), nil
		}
		return decode.AppendResult(nil, id, result), nil
	}
	return nil, nil
}

// answer runs the handler for a request for input (or answers ping).
func (c *Client) answer(ctx context.Context, method string, params []byte) ([]byte, error) {
	var h InputHandler
	switch method {
	case "ping":
		return []byte("{}"), nil
	case "elicitation/create":
		h = c.cfg.Elicitation
	case "sampling/createMessage":
		h = c.cfg.Sampling
	case "roots/list":
		h = c.cfg.Roots
	}
	if h == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoHandler, method)
	}
	res, err := callHandler(h, ctx, method, params)
	if err != nil {
		return nil, err
	}
	if !json.Valid(res) {
		return nil, fmt.Errorf("client: the %s handler returned invalid JSON", method)
	}
	return res, nil
}

// fulfil answers an input_required result's inputRequests and returns the retry's extra params
// members: "inputResponses":{…} and the byte-exact "requestState".
func (c *Client) fulfil(ctx context.Context, res []byte) ([]byte, error) {
	out := []byte(`"inputResponses":{`)
	var ferr error
	n := 0
	decode.Members(decode.Lookup(res, "inputRequests").Raw(), func(key, v []byte, _ decode.Type) bool {
		method := text(v, "method")
		r, err := c.answer(ctx, method, decode.Lookup(v, "params").Raw())
		if err != nil {
			ferr = &opError{fmt.Sprintf("input request %q (%s)", key, method), err}
			return false
		}
		if n > 0 {
			out = append(out, ',')
		}
		n++
		out = append(out, '"')
		out = append(out, key...) // raw key content, escapes kept, as the server sent it
		out = append(out, `":`...)
		out = append(out, r...)
		return true
	})
	if ferr != nil {
		return nil, ferr
	}
	out = append(out, '}')
	if st := decode.Lookup(res, "requestState"); st.Present() {
		out = append(out, `,"requestState":`...)
		out = append(out, st.Raw()...)
	}
	return out, nil
}

// supportedOf reads a -32022's data.supported.
func supportedOf(data []byte) []string {
	var d struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(data, &d) != nil {
		return nil
	}
	return d.Supported
}

// pickVersion chooses the revision to retry with from a -32022's data.supported: the modern
// one, when named.
func pickVersion(data []byte) string {
	if slices.Contains(supportedOf(data), modernVersion) {
		return modernVersion
	}
	return ""
}
