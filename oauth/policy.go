package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// CodeInsufficientScope is the JSON-RPC error code of a [ScopePolicy] refusal (the seed
// system's -32003, outside the JSON-RPC reserved range).
const CodeInsufficientScope fastmcp.Code = -32003

// ScopePolicy is a [fastmcp.Authorizer] that requires scopes per component: a tool, prompt
// or resource listed here is invisible in lists (tools/list, prompts/list, resources/list,
// resources/templates/list) to a caller whose token lacks any of its scopes, and invoking it
// (tools/call, prompts/get, resources/read, completion/complete, a subscription) is refused
// with -32003 "Insufficient scope for tool NAME" and data {"error":"insufficient_scope",
// "scope":"SCOPES"}, SCOPES being all the scopes the component needs, space-separated. A
// component not listed needs no scope. A caller without a verified token ([TokenInfoFrom] nil)
// holds no scope. Since the lists then depend on the token, the core requires them to be
// cached "private" ([fastmcp.Config] refuses a public list cache beside an Authorizer).
//
// Use the same policy as [Config.Policy], so that 2026-07-28 clients get the HTTP 403 step-up
// challenge before the body is read; this check stays the one that holds whatever the
// headers say. A ScopePolicy must not be modified once in use.
type ScopePolicy struct {
	// Tools, Prompts and Resources map a component's name (a resource's or resource
	// template's name, not its URI) to the scopes it needs.
	Tools, Prompts, Resources map[string][]string
	// Implies is the scope hierarchy: a broader scope grants the narrower ones it lists.
	Implies Implies
}

// Required returns the scopes the component of kind ("tool", "prompt", "resource" or
// "resource_template") and name needs, nil for none.
func (p *ScopePolicy) Required(kind, name string) []string {
	switch kind {
	case "tool":
		return p.Tools[name]
	case "prompt":
		return p.Prompts[name]
	case "resource", "resource_template":
		return p.Resources[name]
	}
	return nil
}

// Authorize implements [fastmcp.Authorizer].
func (p *ScopePolicy) Authorize(ctx context.Context, phase fastmcp.Phase, method string, c fastmcp.Component) error {
	required := p.Required(c.Kind, c.Name)
	if len(required) == 0 {
		return nil
	}
	var granted []string
	if info := TokenInfoFrom(ctx); info != nil {
		granted = info.Scopes
	}
	if p.Implies.satisfies(granted, required) {
		return nil
	}
	return insufficientScope(c, required)
}

// insufficientScope is the refusal of a component that needs required.
func insufficientScope(c fastmcp.Component, required []string) *fastmcp.Error {
	kind := c.Kind
	if kind == "resource_template" {
		kind = "resource"
	}
	data, _ := json.Marshal(struct {
		Error string `json:"error"`
		Scope string `json:"scope"`
	}{"insufficient_scope", strings.Join(required, " ")})
	return fastmcp.NewError(CodeInsufficientScope, "Insufficient scope for "+kind+" "+c.Name, data)
}

// forHeaders returns the scopes a 2026-07-28 request needs by its Mcp-Method and Mcp-Name
// headers, nil when they name nothing the policy lists.
func (p *ScopePolicy) forHeaders(method, name string) []string {
	switch method {
	case "tools/call":
		return p.Tools[name]
	case "prompts/get":
		return p.Prompts[name]
	}
	return nil
}

func (p *ScopePolicy) check() error {
	for field, m := range map[string]map[string][]string{"Tools": p.Tools, "Prompts": p.Prompts, "Resources": p.Resources, "Implies": p.Implies} {
		for name, scopes := range m {
			if err := checkScopes(fmt.Sprintf("Policy.%s[%q]", field, name), scopes); err != nil {
				return err
			}
		}
	}
	return nil
}
