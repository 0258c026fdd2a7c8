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

// coreNamedBy returns the params member that the Mcp-Name header mirrors for a core method:
// "name" for tools/call and prompts/get, "uri" for resources/read, "" for the others.
func coreNamedBy(method string) string {
	switch method {
	case MethodToolsCall, MethodPromptsGet:
		return "name"
	case MethodResourcesRead:
		return "uri"
	}
	return ""
}

// serveFunc serves one method of a request whose dialect and capability are checked.
type serveFunc func(*Server, context.Context, *Request, []byte) ([]byte, error)

// componentRoute resolves the methods both eras share (the lists, the calls, reads and gets,
// completion): the method's name, its server and the capability it belongs to; ok is false
// for any other method.
func componentRoute(method []byte) (name string, serve serveFunc, needs componentKind, ok bool) {
	switch string(method) {
	case MethodToolsList:
		return MethodToolsList, (*Server).listTools, kindTool, true
	case MethodToolsCall:
		return MethodToolsCall, (*Server).callTool, kindTool, true
	case MethodPromptsList:
		return MethodPromptsList, (*Server).listPrompts, kindPrompt, true
	case MethodPromptsGet:
		return MethodPromptsGet, (*Server).getPrompt, kindPrompt, true
	case MethodResourcesList:
		return MethodResourcesList, (*Server).listResources, kindResource, true
	case MethodResourceTemplates:
		return MethodResourceTemplates, (*Server).listTemplates, kindResource, true
	case MethodResourcesRead:
		return MethodResourcesRead, (*Server).readResource, kindResource, true
	case MethodComplete:
		return MethodComplete, (*Server).complete, kindCompletion, true
	}
	return "", nil, 0, false
}

// serve resolves method (r's), checks its capability and the request _meta, and serves it.
func (s *Server) serve(ctx context.Context, r *Request, method []byte, dst []byte) ([]byte, error) {
	name, serve, needs, ok := componentRoute(method)
	if !ok {
		switch string(method) {
		case MethodDiscover:
			name, serve = MethodDiscover, (*Server).discover
		case MethodListen:
			name, serve = MethodListen, (*Server).listen
		case "elicitation/create", "sampling/createMessage", "roots/list":
			return nil, errInputRequestAsTopLv
		case methodInitialize:
			return nil, s.initializeNotServed(r.msg)
		default:
			if body, ok, err := s.serveExtension(ctx, r, method, dst); ok {
				return body, err
			}
			return nil, ErrMethodNotFound
		}
	}
	r.method = name
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
