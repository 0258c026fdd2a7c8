package gateway

import (
	"encoding/json"
	"errors"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// A backend's multi round-trip request (2026-07-28 input_required) is relayed, not
// answered: its inputRequests go to the caller unchanged, and its requestState rides inside
// the Gateway's own, which the Server seals (bound to the request and the caller, expiring).
// The caller's retry opens it on whichever replica it lands, and the backend gets the
// caller's inputResponses with its own requestState back: no replica keeps any state.

// stateRelayed tags the Gateway's state of a relayed round: the backend's requestState (a
// JSON string, byte-exact) follows, or nothing when it sent none.
const stateRelayed byte = 1

var errForeignState = fastmcp.NewError(fastmcp.CodeInvalidParams, "Invalid params: requestState was not issued for this request", nil)

// inputRound is what the backend gets of the caller's round: the caller's input
// capabilities, and on a retry its answers and the backend's requestState.
func inputRound(r *fastmcp.Request) (client.InputRound, error) {
	round := client.InputRound{Capabilities: inputCapabilities(r.ClientCapabilities())}
	if resp := r.InputResponses(); len(resp) > 0 {
		round.Responses = append(json.RawMessage(nil), resp...)
	}
	if st := r.State(); len(st) > 0 {
		if st[0] != stateRelayed {
			return round, errForeignState
		}
		if len(st) > 1 {
			round.State = append(json.RawMessage(nil), st[1:]...)
		}
	}
	return round, nil
}

// inputCapabilities keeps the members of a caller's clientCapabilities that say which
// input requests it answers (elicitation, sampling, roots): the backend decides on them as
// if the caller were its own. Extensions (tasks) are the Gateway's to declare, not the
// caller's. Nil (an initialize-era caller over stateless HTTP) declares the Gateway's own.
func inputCapabilities(caps json.RawMessage) json.RawMessage {
	if len(caps) == 0 {
		return nil
	}
	return editObject(caps, func(key, v []byte) []byte {
		switch string(key) {
		case "elicitation", "sampling", "roots":
			return v
		}
		return nil
	})
}

// relayedInput turns a backend's input_required result into the handler's InputRequired;
// nil when the result is a final one.
func relayedInput(raw []byte) (*fastmcp.InputRequired, error) {
	if decode.Lookup(raw, "resultType").String() != "input_required" {
		return nil, nil
	}
	var res struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	if len(res.InputRequests) == 0 {
		return nil, errors.New("input_required without inputRequests")
	}
	ir := &fastmcp.InputRequired{Requests: make(map[string]fastmcp.InputRequest, len(res.InputRequests))}
	for k, req := range res.InputRequests {
		if !isObject(req.Params) {
			return nil, errors.New("an input request's params is not an object")
		}
		ir.Requests[k] = fastmcp.InputRequest{Method: req.Method, Params: req.Params}
	}
	ir.State = []byte{stateRelayed}
	if st := decode.Lookup(raw, "requestState"); st.Present() {
		if st.Type() != decode.TypeString {
			return nil, errors.New("requestState is not a string")
		}
		ir.State = append(ir.State, st.Raw()...)
	}
	return ir, nil
}
