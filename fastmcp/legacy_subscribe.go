package fastmcp

import (
	"context"
	"strconv"

	"github.com/fastmcp-go/fastmcp/decode"
)

var (
	errSubscribeURI   = &Error{Code: CodeInvalidParams, Message: "Invalid params: uri must be a string"}
	errSubscribeLimit = &Error{Code: CodeInvalidParams, Message: "Invalid params: at most " + strconv.Itoa(MaxResourceSubscriptions) + " resource subscriptions per connection"}
)

// subscribe serves resources/subscribe of the initialize-era dialects: the URI is recorded in
// the connection's LegacyEvents, which sends notifications/resources/updated for it; without
// them (stateless HTTP) the request is accepted and nothing is ever delivered. The URI need
// not name a resource yet. An authorization policy is asked as for a listen stream's
// subscription: a refusal is its error, or with ConcealRefusals an accepted subscription
// that records nothing.
func (s *Server) subscribe(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	u := r.msg.URI()
	if u.Type() != decode.TypeString {
		return nil, errSubscribeURI
	}
	uri := u.String()
	if u.Text() == nil {
		uri = string(decode.Unquote(nil, u.Raw()))
	}
	if s.cfg.Authorizer != nil {
		refusal, fault := s.authorize(ctx, PhaseInvocation, r.method, resourceComponent(r.cat, uri))
		switch {
		case fault != nil:
			return nil, errPolicyFault
		case refusal != nil && s.cfg.ConcealRefusals:
			return appendEmptyResult(dst, r.ID()), nil
		case refusal != nil:
			return nil, refusal
		}
	}
	if ev := r.client.Events; ev != nil && !ev.Subscribe(uri) {
		return nil, errSubscribeLimit
	}
	return appendEmptyResult(dst, r.ID()), nil
}

// unsubscribe serves resources/unsubscribe: the URI is forgotten; an unknown one is no error.
func (s *Server) unsubscribe(_ context.Context, r *Request, dst []byte) ([]byte, error) {
	u := r.msg.URI()
	if u.Type() != decode.TypeString {
		return nil, errSubscribeURI
	}
	if ev := r.client.Events; ev != nil {
		uri := u.String()
		if u.Text() == nil {
			uri = string(decode.Unquote(nil, u.Raw()))
		}
		ev.Unsubscribe(uri)
	}
	return appendEmptyResult(dst, r.ID()), nil
}
