package streamable

import (
	"errors"
	"net/http"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

const methodCancelled = "notifications/cancelled"

var (
	errVersionRepeated = mismatch("MCP-Protocol-Version header is repeated")
	// errNoVersion refuses a request that names no protocol version at all, neither in _meta
	// nor in the header, when initialize-era dialects are served: the modern rule's -32602
	// (400), worded for both kinds of client.
	errNoVersion = &httpError{status: http.StatusBadRequest, code: fastmcp.CodeInvalidParams,
		message: "Missing required request metadata: io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities" +
			" (an initialize-era client sends the MCP-Protocol-Version header it negotiated)"}
	errClientCancelled = errors.New("streamable: cancelled by the client")
)

// classify records in j the dialect that serves its request (transport.Endpoint.Classify, from
// the request's _meta, its method and the one MCP-Protocol-Version header), or returns the
// refusal: a repeated header (400 -32020), a version not served (400 -32022 naming those
// served), no version at all (400 -32602, errNoVersion). The header is read only when the
// request carries no modern _meta and is not initialize, which classify themselves.
func (ep *endpoint) classify(j *job, h Headers) (*httpError, []byte) {
	m := &j.msg
	var version []byte
	has := false
	if !m.ProtocolVersion().Present() && string(m.Method().Text()) != fastmcp.MethodInitialize {
		switch vs := h.Values(HeaderProtocolVersion); len(vs) {
		case 0:
		case 1:
			version, has = trimOWS(vs[0]), true
		default:
			return errVersionRepeated, nil
		}
	}
	if !has && !m.ProtocolVersion().Present() && string(m.Method().Text()) != fastmcp.MethodInitialize && ep.core.ServesLegacy() {
		return errNoVersion, nil // a version named nowhere, and either era could be meant
	}
	d, err := ep.core.Classify(m, version, has)
	if err != nil {
		body := decode.AppendError(j.reply[:0], m.ID().Raw(), int64(err.Code), err.Message, err.Data, false)
		return &httpError{status: http.StatusBadRequest}, body
	}
	j.state, j.rules = ep.core.Stateless(d), transport.RulesOf(d)
	if ep.sessions != nil && d.Legacy() {
		if e := ep.classifySession(j, h); e != nil {
			return e, nil
		}
	}
	return nil, nil
}

// cancelByID serves notifications/cancelled: the one running request of principal with
// that id is withdrawn (transport.Cancels); an unknown, malformed or ambiguous id is
// ignored, as the revisions ask.
func (ep *endpoint) cancelByID(principal string, id decode.Value) {
	ep.cancels.Cancel(principal, id)
}

// Withdraw cancels j for its client, who will get no response: its event stream ends with
// no response event, or its connection closes unanswered (transport.Withdrawer).
func (j *job) Withdraw() {
	j.withdrawn.Store(true)
	if j.ep.exec.Cancel(j.key, errClientCancelled) {
		j.ep.stats.clientCancels.Add(1)
	}
}

// register enters a request that notifications/cancelled may name (its dialect's rules say
// which) in the endpoint's registry, under key, the executor key it will run under.
func (ep *endpoint) register(j *job, key pool.Key) {
	j.key = key
	if j.rules.Cancellable(j.msg.Method().Text()) {
		ep.cancels.Add(&j.running, j.principal(), j.msg.ID().Raw(), j)
	}
}

// hostKey is a fresh executor key for a request of the hosts (net/http, the mount, other
// hosts), by which notifications/cancelled cancels it. The top bit keeps them apart from
// the native listener's connection ids, should both share an injected executor.
func (ep *endpoint) hostKey() pool.Key {
	return pool.Key{Owner: 1<<63 | ep.owners.Add(1)}
}
