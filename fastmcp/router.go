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

// route resolves the method of r, checks its capability and the request _meta, and serves it.
func (s *Server) serve(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	var serve func(*Server, context.Context, *Request, []byte) ([]byte, error)
	switch string(r.msg.Method().Text()) {
	case MethodDiscover:
		r.method, serve = MethodDiscover, (*Server).discover
	case MethodToolsList:
		r.method, serve = MethodToolsList, (*Server).listTools
	case MethodToolsCall:
		r.method, serve = MethodToolsCall, (*Server).callTool
	case MethodPromptsList:
		r.method, serve = MethodPromptsList, (*Server).listPrompts
	case MethodPromptsGet:
		r.method, serve = MethodPromptsGet, (*Server).getPrompt
	case MethodResourcesList:
		r.method, serve = MethodResourcesList, (*Server).listResources
	case MethodResourceTemplates:
		r.method, serve = MethodResourceTemplates, (*Server).listTemplates
	case MethodResourcesRead:
		r.method, serve = MethodResourcesRead, (*Server).readResource
	case MethodComplete:
		r.method, serve = MethodComplete, (*Server).complete
	case MethodListen:
		r.method, serve = MethodListen, (*Server).listen
	case "elicitation/create", "sampling/createMessage", "roots/list":
		return nil, errInputRequestAsTopLv
	default:
		return nil, ErrMethodNotFound
	}
	kinds := r.cat.kinds
	switch {
	case kinds&kindTool == 0 && (r.method == MethodToolsList || r.method == MethodToolsCall),
		kinds&kindPrompt == 0 && (r.method == MethodPromptsList || r.method == MethodPromptsGet),
		kinds&kindResource == 0 && (r.method == MethodResourcesList || r.method == MethodResourceTemplates || r.method == MethodResourcesRead),
		kinds&kindCompletion == 0 && r.method == MethodComplete:
		return nil, ErrMethodNotFound // the capability is not advertised
	}
	if err := s.checkMeta(r); err != nil {
		return nil, err
	}
	return serve(s, ctx, r, dst)
}
