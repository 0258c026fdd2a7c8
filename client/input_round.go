package client

import (
	"encoding/json"

	"github.com/fastmcp-go/fastmcp/decode"
)

// InputRound hands the multi round-trip rounds (2026-07-28 input_required) of one
// tools/call, prompts/get or resources/read to the caller instead of the configured input
// handlers, as a gateway that relays them to its own caller needs. See [WithInputRound].
type InputRound struct {
	// Capabilities, when non-nil, is the clientCapabilities object this request declares
	// instead of the one built from the configured handlers.
	Capabilities json.RawMessage
	// Responses (an inputResponses object) and State (the server's requestState, a JSON
	// string, byte-exact) make the request the retry of an earlier round; nil on a first one.
	Responses json.RawMessage
	State     json.RawMessage
}

// WithInputRound makes one call a single exchange of a multi round-trip request on a
// 2026-07-28 connection: it declares r.Capabilities, carries r.Responses and r.State, and
// an input_required answer is its result (resultType "input_required", with inputRequests
// and requestState) rather than being answered with the configured handlers. On an
// initialize-era connection it changes nothing: the server's requests still go to the
// handlers.
func WithInputRound(r InputRound) CallOption {
	return func(o *callOpts) { o.round = &r }
}

// appendRound appends the retry members of a round to a request's params members.
func (r *InputRound) appendRound(members []byte) []byte {
	if len(r.Responses) == 0 && len(r.State) == 0 { // a first round: nothing to add
		return members
	}
	out := append([]byte(nil), members...)
	add := func(key string, v []byte) {
		if len(v) == 0 {
			return
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = decode.AppendString(out, key, false)
		out = append(append(out, ':'), v...)
	}
	add("inputResponses", r.Responses)
	add("requestState", r.State)
	return out
}
