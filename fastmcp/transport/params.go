package transport

import (
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/jsonschema"
)

// HeaderParamPrefix is the prefix of the headers that mirror x-mcp-header arguments.
const HeaderParamPrefix = jsonschema.HeaderPrefix

// HeaderParams are the x-mcp-header arguments of one tool (see [Endpoint.HeaderParams]).
type HeaderParams struct {
	ps []jsonschema.HeaderParam
}

// Len is the number of x-mcp-header arguments.
func (p HeaderParams) Len() int { return len(p.ps) }

// Check checks the Mcp-Param-* headers of a tools/call whose arguments are args: every
// x-mcp-header argument present (and not null) needs its header, which value returns
// (trimmed and decoded from its =?base64?…?= form; found false when it is absent or
// repeated, valid false when it does not decode), equal to the argument by the
// specification's conversions. It returns the name of the first header that fails, and
// whether it was missing (otherwise it did not match); "" when every one matches.
func (p HeaderParams) Check(args decode.Value, value func(header string) (v []byte, found, valid bool)) (header string, missing bool) {
	for _, hp := range p.ps {
		v := args
		for _, key := range hp.Path {
			if v.Type() != decode.TypeObject {
				v = decode.Value{}
				break
			}
			v = decode.Lookup(v.Raw(), key)
		}
		if !v.Present() || v.Type() == decode.TypeNull {
			continue
		}
		name := hp.Header()
		got, found, valid := value(name)
		if !found {
			return name, true
		}
		if !valid || !hp.Matches(got, v) {
			return name, false
		}
	}
	return "", false
}
