package streamable

import (
	"errors"
	"net/http"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
	"github.com/fastmcp-go/fastmcp/sse"
)

// endpoint is the host-neutral part of the transport: admission in the order the protocol
// and the conformance suite require, and the mapping of outcomes to statuses. The native
// listener and the net/http adapter are both built on it.
type endpoint struct {
	cfg     Config
	srv     *fastmcp.Server
	core    *transport.Endpoint // srv's side for transports
	exec    *pool.Executor
	ownExec bool
	hosts   hostPolicy
	stats   counters
	refused refusalCounters // see observer.go
	// cancels are the running requests notifications/cancelled may name.
	cancels transport.Cancels
	// owners numbers the executor keys of the hosts' legacy jobs (see legacyKey).
	owners atomic.Uint64
	// sessions serves initialize-era sessions; nil unless Config.LegacySessions.
	sessions *sessions
}

// newEndpoint returns the endpoint serving srv under cfg. loopback tells whether the host
// serves only loopback (or cannot tell, which is taken for loopback): the Host must then
// be a loopback name unless AllowedHosts or DisableHostCheck says otherwise.
func newEndpoint(srv *fastmcp.Server, cfg Config, loopback bool) (*endpoint, error) {
	if srv == nil {
		return nil, errors.New("streamable: nil fastmcp.Server")
	}
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	ep := &endpoint{cfg: cfg, srv: srv, core: transport.For(srv), exec: cfg.Executor, hosts: newHostPolicy(cfg, loopback)}
	if ep.exec == nil {
		ep.exec, err = pool.New(pool.Config{
			MaxConcurrency: cfg.MaxConcurrency,
			MaxQueue:       cfg.MaxQueue,
			DefaultTimeout: pool.NoTimeout, // the transport applies RequestTimeout itself
			MaxSlots:       cfg.MaxSubscriptions,
			Logger:         cfg.Logger,
		})
		if err != nil {
			return nil, errors.Join(ErrInvalidConfig, err)
		}
		ep.ownExec = true
	}
	if cfg.LegacySessions {
		ep.sessions = newSessions(ep)
	}
	return ep, nil
}

// sseConfig is the configuration of the endpoint's event streams: each event bounded by
// WriteTimeout, keepalives (on listen streams) every silent KeepAliveInterval.
func (ep *endpoint) sseConfig() sse.Config {
	return sse.Config{WriteTimeout: ep.cfg.WriteTimeout, KeepAliveInterval: ep.cfg.KeepAliveInterval}
}

// admitHead checks what is known before the body: method, path, Origin, Host, media types.
func (ep *endpoint) admitHead(method, path []byte, h Headers, host []byte) *httpError {
	if string(path) != ep.cfg.Path {
		return errPath
	}
	if string(method) != http.MethodPost {
		return errMethod
	}
	if !ep.hosts.checkOrigin(h.Values("Origin")) {
		return errOrigin
	}
	if !ep.hosts.checkHostHeader(host) {
		return errHost
	}
	ct := h.Values("Content-Type")
	if len(ct) != 1 || !mediaTypeIs(ct[0], "application/json") {
		return errContentType
	}
	if !acceptsBoth(h.Values("Accept")) {
		return errAccept
	}
	return nil
}

// admitBody decodes the body into j, classifies it, and checks the envelope and, for a
// 2026-07-28 request, the mirrored headers. It returns the error response to send (reply,
// when set, is its whole body), or nil when j is a request to execute, its dialect recorded.
// A notification or a response object is served here and accepted with 202: a response
// (the answer to a server-to-client request) goes to the core's Answer, and
// notifications/cancelled cancels the legacy request it names.
func (ep *endpoint) admitBody(j *job, h Headers) (e *httpError, reply []byte) {
	m := &j.msg
	if err := ep.core.Decoder().Decode(m, j.body); err != nil {
		switch m.Kind() {
		case decode.KindNotification, decode.KindResponse:
			return errAccepted, nil
		}
		ep.refused.undecodable.Add(1)
		r := ep.core.DecodeError(j.reply[:0], m, err)
		return &httpError{status: http.StatusBadRequest}, r.Body
	}
	if k := m.Kind(); ep.sessions != nil && (k == decode.KindNotification || k == decode.KindResponse) {
		if e := ep.checkSessionHeader(j, h); e != nil {
			return e, nil
		}
	}
	switch m.Kind() {
	case decode.KindNotification:
		if string(m.Method().Text()) == methodCancelled {
			ep.cancelByID(j.principal(), decode.Lookup(m.Params().Raw(), "requestId"))
		}
		return errAccepted, nil // a modern request is cancelled by closing its stream
	case decode.KindResponse:
		// Accepted whether or not it answers an outstanding request: a late, repeated or
		// unknown answer is ignored, as the client can do nothing about it.
		ep.core.Answer(m, j.principal())
		return errAccepted, nil
	case decode.KindRequest:
	default:
		r := ep.core.DecodeError(j.reply[:0], m, errInvalidEnvelope)
		return &httpError{status: http.StatusBadRequest}, r.Body
	}
	if e, reply := ep.classify(j, h); e != nil {
		return e, reply
	}
	if !j.rules.MirroredHeaders {
		return nil, nil // Mcp-Method and Mcp-Name are 2026-07-28's
	}
	if !m.ProtocolVersion().Present() || !m.ClientCapabilities().Present() {
		return nil, nil // the core answers -32602 before any header is compared
	}
	if e := checkMirrors(h, m, ep.core); e != nil {
		return e, nil
	}
	// Only for a version the core serves: it refuses any other (-32022) first.
	if string(m.Method().Text()) == fastmcp.MethodToolsCall && fastmcp.ParseDialect(m.ProtocolVersion().Text()) == fastmcp.Modern {
		if e := checkParams(h, m, ep.core); e != nil {
			return e, nil
		}
	}
	return nil, nil
}

var errInvalidEnvelope = &decode.Error{Code: decode.CodeInvalidRequest, Message: "Invalid Request: not a JSON-RPC request"}

// status is the HTTP status of the job's reply, by its dialect's rules.
func (j *job) status() int { return j.rules.HTTPStatus(j.rerr) }

// outcomeError maps an executor outcome that produced no reply to the transport's error
// (the core's table, fastmcp.OutcomeError); a cancelled request gets no body.
func outcomeError(r pool.Result) *httpError {
	if e := fastmcp.OutcomeError(r); e != nil {
		return refusals[e]
	}
	return errCancelledNoBody
}

// submitError maps a Submit refusal (the core's table, fastmcp.SubmitError).
func submitError(err error) *httpError { return refusals[fastmcp.SubmitError(err)] }
