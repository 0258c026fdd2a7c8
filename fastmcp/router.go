package fastmcp

import (
	"context"

	"github.com/fastmcp-go/fastmcp/decode"
)

// The methods of the 2026-07-28 core.
const (
	MethodDiscover          = "server/discover"
	MethodToolsList         = "tools/list"
	MethodToolsCall         = "tools/call"
	MethodPromptsList       = "prompts/list"
	MethodPromptsGet        = "prompts/get"
	MethodResourcesList     = "resources/list"
	MethodResourceTemplates = "resources/templates/list"
	MethodResourcesRead     = "resources/read"
	MethodComplete          = "completion/complete"
	MethodListen            = "subscriptions/listen"
)

// IsStreaming reports whether method always answers with a stream (subscriptions/listen):
// transports open an event stream before serving it.
func IsStreaming(method string) bool { return method == MethodListen }

// NamedBy returns the params member that the Mcp-Name header mirrors for method: "name" for
// tools/call and prompts/get, "uri" for resources/read, "" for the others.
func NamedBy(method string) string {
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		return "name"
	case MethodResourcesRead:
		return "uri"
	}
	return ""
}

// serve resolves method (r's), checks its capability and the request _meta, and serves it.
func (s *Server) serve(ctx context.Context, r *Request, method []byte, dst []byte) ([]byte, error) {
	var serve func(*Server, context.Context, *Request, []byte) ([]byte, error)
	var needs componentKind // the capability the method belongs to, if any
	switch string(method) {
	case MethodDiscover:
		r.method, serve = MethodDiscover, (*Server).discover
	case MethodToolsList:
		r.method, serve, needs = MethodToolsList, (*Server).listTools, kindTool
	case MethodToolsCall:
		r.method, serve, needs = MethodToolsCall, (*Server).callTool, kindTool
	case MethodPromptsList:
		r.method, serve, needs = MethodPromptsList, (*Server).listPrompts, kindPrompt
	case MethodPromptsGet:
		r.method, serve, needs = MethodPromptsGet, (*Server).getPrompt, kindPrompt
	case MethodResourcesList:
		r.method, serve, needs = MethodResourcesList, (*Server).listResources, kindResource
	case MethodResourceTemplates:
		r.method, serve, needs = MethodResourceTemplates, (*Server).listTemplates, kindResource
	case MethodResourcesRead:
		r.method, serve, needs = MethodResourcesRead, (*Server).readResource, kindResource
	case MethodComplete:
		r.method, serve, needs = MethodComplete, (*Server).complete, kindCompletion
	case MethodListen:
		r.method, serve = MethodListen, (*Server).listen
	case "elicitation/create", "sampling/createMessage", "roots/list":
		return nil, errInputRequestAsTopLv
	case methodInitialize:
		return nil, s.initializeNotServed(r.msg)
	default:
		return nil, ErrMethodNotFound
	}
	if r.cat.kinds&needs != needs {
		return nil, ErrMethodNotFound // the capability is not advertised
	}
	if err := s.checkMeta(r); err != nil {
		return nil, err
	}
	return serve(s, ctx, r, dst)
}

// methodInitialize opens a session in the initialize-era revisions (2025-11-25 and earlier).
const methodInitialize = "initialize"

// maxRequestedVersionBytes bounds the protocol version an initialize error echoes.
const maxRequestedVersionBytes = 64

// initializeNotServed is the answer to initialize while the server speaks 2026-07-28 only: the
// method does not exist there (-32601, HTTP 404), and the error names the versions served, as
// the specification asks of a modern-only server ("SHOULD name the protocol versions it supports
// in any error it returns to an initialize request"), so that the client can retry with one of
// them: {"code":-32601,"message":"Method not found","data":{"supported":["2026-07-28"],
// "requested":"2025-11-25"}}. requested is params.protocolVersion when it is a string of at
// most 64 bytes, and left out otherwise.
func (s *Server) initializeNotServed(m *decode.Message) *Error {
	data := append(append(make([]byte, 0, 96), `{"supported":`...), s.supportedJSON...)
	if v := decode.Lookup(m.Params().Raw(), "protocolVersion"); v.Type() == decode.TypeString {
		text := v.Text()
		if text == nil {
			text = decode.Unquote(nil, v.Raw())
		}
		if len(text) <= maxRequestedVersionBytes {
			data = append(data, `,"requested":`...)
			data = decode.AppendStringBytes(data, text, false)
		}
	}
	data = append(data, '}')
	return &Error{Code: CodeMethodNotFound, Message: ErrMethodNotFound.Message, Data: data}
}
