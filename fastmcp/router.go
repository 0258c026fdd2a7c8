package fastmcp

import (
	"context"
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
