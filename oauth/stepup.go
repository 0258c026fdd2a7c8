package oauth

import (
	"encoding/json"
	"strings"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// StepUp is the resource server's [streamable.Config.StepUp]: it answers an initialize-era
// request that a [ScopePolicy] refused at the component boundary (-32003 with data
// {"error":"insufficient_scope","scope":…}) with the 403 insufficient_scope challenge the
// gate gives a 2026-07-28 request before its body, naming [Config.RequiredScopes] and the
// scopes the component needs, so that initialize-era clients step up as modern ones do. Any
// other error is left to the JSON-RPC reply (nil).
func (rs *ResourceServer) StepUp(err *fastmcp.Error) *streamable.GateResponse {
	if err == nil || err.Code != CodeInsufficientScope {
		return nil
	}
	var data struct {
		Error string `json:"error"`
		Scope string `json:"scope"`
	}
	if json.Unmarshal(err.Data, &data) != nil || data.Error != "insufficient_scope" {
		return nil
	}
	scopes := strings.Fields(data.Scope)
	if len(scopes) == 0 {
		return nil
	}
	rs.counters.stepUps.Add(1)
	return rs.challenger.stepUp(union(rs.cfg.RequiredScopes, scopes))
}
