package fastmcp

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// metaSubscriptionID is the _meta key that tags every message of a listen stream with the id of
// the subscriptions/listen request.
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// Errors of subscriptions/listen.
var (
	errShuttingDown   = &Error{Code: CodeInternalError, Message: "Server is shutting down", unavailable: true}
	errSubscriptions  = &Error{Code: CodeInternalError, Message: "Server subscription capacity exhausted", unavailable: true}
	errNoStream       = &Error{Code: CodeInternalError, Message: "subscriptions/listen needs a notification stream"}
	errFilterMissing  = &Error{Code: CodeInvalidParams, Message: "Invalid params: notifications is required"}
	errFilterType     = &Error{Code: CodeInvalidParams, Message: "Invalid params: notifications must be an object"}
	errFilterBool     = &Error{Code: CodeInvalidParams, Message: "Invalid params: toolsListChanged, promptsListChanged and resourcesListChanged must be booleans"}
	errFilterURIs     = &Error{Code: CodeInvalidParams, Message: "Invalid params: resourceSubscriptions must be an array of absolute URIs"}
	errFilterTooMany  = &Error{Code: CodeInvalidParams, Message: "Invalid params: resourceSubscriptions lists more than 1000 URIs"}
	listChangedFields = [numListKinds]string{"toolsListChanged", "promptsListChanged", "resourcesListChanged"}
	listChangedMethod = [numListKinds]string{
		"notifications/tools/list_changed",
		"notifications/prompts/list_changed",
		"notifications/resources/list_changed",
	}
)

// Publish announces e to the listen streams of every Server that shares this one's
// [EventBus] (this one only, with the default bus). Catalog changes publish their
// list_changed event themselves; Publish is for other changes, for example an authorization
// policy change that alters what a list shows. It never blocks on a listen stream.
func (s *Server) Publish(e Event) { s.bus.Publish(e) }

// Subscribe registers deliver for every event the Server's bus delivers, of every kind, until
// cancel: how extensions and transports act on the kinds addressed to a handler (TaskChanged,
// SessionMessage, Answer), published by any replica sharing the bus. deliver must not block;
// it may be called concurrently.
func (s *Server) Subscribe(deliver func(Event)) (cancel func()) { return s.hub.Subscribe(deliver) }

// SharedBus reports whether the Server has a configured [Config.EventBus]: what it
// publishes reaches the other Servers sharing that bus, not only itself.
func (s *Server) SharedBus() bool { return s.cfg.EventBus != nil }

// NotifyResourceUpdated announces that the resource at uri changed: every listen stream that
// listed exactly uri in resourceSubscriptions gets notifications/resources/updated. It never
// blocks on a listen stream.
func (s *Server) NotifyResourceUpdated(uri string) {
	s.bus.Publish(Event{Kind: ResourceUpdated, URI: uri})
}

// CloseSubscriptions ends every listen stream of the Server gracefully: each one's Handle
// returns the listen request's completion response (resultType "complete", with the
// subscriptionId), which tells the client to listen again elsewhere and re-list. Later listen
// requests are answered -32603 "Server is shutting down", and the Server stops receiving events
// from a configured EventBus. Transports call it when they start draining; it returns at once
// and is idempotent. Other methods keep being served.
func (s *Server) CloseSubscriptions() { s.hub.close() }

// Subscribers returns the number of listen streams open on this Server.
func (s *Server) Subscribers() int { return int(s.hub.streams.Load()) }

// listen serves subscriptions/listen. It validates the filter, keeps the subset the server
// honours, takes the stream's bytes from the budget (Config.MaxSubscriptionBytes), writes the
// acknowledgement through the sink, then writes the events the stream opted into until the
// stream ends:
//   - the client goes away (ctx done) or the sink fails: no reply;
//   - CloseSubscriptions, the stream's resources/updated queue overflowed, or the bus delivered
//     EventsLost: the completion response, so the client re-lists and listens again rather
//     than missing events.
//
// The params.notifications filter is required, as in the schema's SubscriptionsListenRequest:
// a missing one is -32602, like a member of the wrong type or more than
// [MaxResourceSubscriptions] URIs. Members a server does not know (an extension's) are
// ignored and left out of the acknowledgement.
func (s *Server) listen(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	if r.sink == nil {
		return nil, errNoStream
	}
	if s.hub.isClosed() {
		return nil, errShuttingDown
	}
	lists, uris, ferr := parseFilter(r.msg.Params().Raw())
	if ferr != nil {
		return nil, ferr
	}
	// Honour only what the catalog advertises: listChanged per kind of component, and
	// resources.subscribe.
	for k, kind := range [numListKinds]componentKind{kindTool, kindPrompt, kindResource} {
		if r.cat.kinds&kind == 0 {
			lists &^= 1 << k
		}
	}
	if r.cat.kinds&kindResource == 0 {
		uris = nil
	}
	acked := uris
	uris, err := s.authorizeSubscriptions(ctx, r, uris)
	if err != nil {
		return nil, err
	}
	tap, err := s.openTap(ctx, r)
	if err != nil {
		return nil, err
	}
	var tapAck []byte
	var tapEvents <-chan ListenEvent
	if tap != nil {
		if tap.Stop != nil {
			defer tap.Stop()
		}
		tapAck, tapEvents = tap.Ack, tap.Events
	}
	if !s.cfg.ConcealRefusals {
		acked = uris
	}

	// From here on the stream holds nothing of the request but a copy of its id: the
	// transport may release the request once the acknowledgement reaches the sink (see
	// Handle).
	id := bytes.Clone(r.ID())
	l, ok := s.hub.subscribe(lists, uris, len(id))
	if !ok {
		return nil, errSubscriptions
	}
	defer s.hub.unsubscribe(l)
	buf := getListenBuf()
	*buf = appendAck(*buf, id, lists, acked, tapAck)
	err = r.sink.Notify(ctx, *buf)
	putListenBuf(buf)
	if err != nil {
		return nil, nil // the client is gone: no reply
	}
	var expired <-chan time.Time
	if caller := IdentityFrom(ctx); caller != nil && !caller.Expires.IsZero() {
		t := time.NewTimer(time.Until(caller.Expires))
		defer t.Stop()
		expired = t.C
	}
	if !s.stream(ctx, r.sink, id, l, tapEvents, expired) {
		return nil, nil
	}
	return s.appendListenResult(dst, id), nil
}

// stream writes the events of l, and those of an extension's tap, through sink until the
// stream ends. It reports true when the stream ends gracefully (the completion response is
// due: at a drain, or when the caller's credential expired), false when the client is gone.
func (s *Server) stream(ctx context.Context, sink Sink, id []byte, l *listener, tap <-chan ListenEvent, expired <-chan time.Time) bool {
	h := s.hub
	for {
		select {
		case <-ctx.Done():
			return false
		case <-h.closed:
			return true
		case <-l.lost.done:
			return true // the bus may have lost events: the client re-reads
		case <-expired:
			return true
		case <-l.waitOn(0):
		case <-l.waitOn(1):
		case <-l.waitOn(2):
		case <-l.wake:
		case ev, ok := <-tap:
			switch {
			case !ok:
				tap = nil
			case h.isClosed():
				return true
			case !writeTapEvent(ctx, sink, id, ev):
				return false
			}
			continue
		}
		if end, graceful := s.flush(ctx, sink, id, l); end {
			return graceful
		}
	}
}

// flush writes what is pending for l, one notification at a time: the list_changed kinds that
// fired (once each, however often), then the queued resources/updated URIs. It reports whether
// the stream ends, and if so whether gracefully.
func (s *Server) flush(ctx context.Context, sink Sink, id []byte, l *listener) (end, graceful bool) {
	h := s.hub
	buf := getListenBuf()
	defer putListenBuf(buf)
	send := func(msg []byte) (end, graceful bool) {
		switch {
		case h.isClosed():
			return true, true
		case ctx.Err() != nil:
			return true, false
		case sink.Notify(ctx, msg) != nil:
			return true, false
		}
		return false, false
	}
	for k := range numListKinds {
		if l.changed(h, k) {
			*buf = appendListChanged((*buf)[:0], id, k)
			if end, graceful = send(*buf); end {
				return end, graceful
			}
		}
	}
	if l.wake == nil {
		return false, false
	}
	for _, uri := range l.take() {
		if l.overflow.Load() {
			return true, true
		}
		*buf = appendResourceUpdated((*buf)[:0], id, uri)
		if end, graceful = send(*buf); end {
			return end, graceful
		}
	}
	return l.overflow.Load(), true
}

// parseFilter reads params.notifications: the list_changed kinds asked for (bit k for
// listChangedFields[k]) and the resource URIs, unescaped, absolute, without duplicates, in the
// client's order.
func parseFilter(params []byte) (lists uint8, uris []string, _ *Error) {
	f := decode.Lookup(params, "notifications")
	switch f.Type() {
	case decode.TypeObject:
	case decode.TypeAbsent:
		return 0, nil, errFilterMissing
	default:
		return 0, nil, errFilterType
	}
	for k, name := range listChangedFields {
		switch v := decode.Lookup(f.Raw(), name); {
		case !v.Present():
		case v.Type() != decode.TypeBool:
			return 0, nil, errFilterBool
		case v.Raw()[0] == 't':
			lists |= 1 << k
		}
	}
	subs := decode.Lookup(f.Raw(), "resourceSubscriptions")
	switch subs.Type() {
	case decode.TypeAbsent:
		return lists, nil, nil
	case decode.TypeArray:
	default:
		return 0, nil, errFilterURIs
	}
	n := 0
	decode.Elements(subs.Raw(), func([]byte, decode.Type) bool {
		n++
		return n <= MaxResourceSubscriptions
	})
	if n > MaxResourceSubscriptions {
		return 0, nil, errFilterTooMany
	}
	uris = make([]string, 0, n)
	var seen map[string]struct{} // past a few URIs, to drop duplicates in linear time
	if n > 16 {
		seen = make(map[string]struct{}, n)
	}
	var scratch []byte
	ok := true
	decode.Elements(subs.Raw(), func(lit []byte, t decode.Type) bool {
		if t != decode.TypeString {
			ok = false
			return false
		}
		scratch = decode.Unquote(scratch[:0], lit)
		if ok = isAbsoluteURI(scratch); !ok {
			return false
		}
		if seen != nil {
			if _, dup := seen[string(scratch)]; dup {
				return true
			}
			u := string(scratch)
			seen[u] = struct{}{}
			uris = append(uris, u)
		} else if !slices.Contains(uris, string(scratch)) {
			uris = append(uris, string(scratch))
		}
		return true
	})
	if !ok {
		return 0, nil, errFilterURIs
	}
	return lists, uris, nil
}

// authorizeSubscriptions applies the invocation check to each URI, against the resource or
// template it names in the request's catalog (or the bare URI when it names none), and returns
// the URIs allowed, in a new slice: refused URIs get no events. They are left out of the
// acknowledgement too, unless refusals are concealed: then a refused URI is acknowledged like
// one that names no resource (which is kept, and never updated). A policy fault fails the
// request.
func (s *Server) authorizeSubscriptions(ctx context.Context, r *Request, uris []string) ([]string, error) {
	if s.cfg.Authorizer == nil || len(uris) == 0 {
		return uris, nil
	}
	var kept []string
	for i, u := range uris {
		refusal, fault := s.authorize(ctx, PhaseInvocation, r.method, resourceComponent(r.cat, u))
		switch {
		case fault != nil:
			return nil, errPolicyFault
		case refusal != nil && kept == nil:
			kept = append(make([]string, 0, len(uris)-1), uris[:i]...)
		case refusal == nil && kept != nil:
			kept = append(kept, u)
		}
	}
	if kept == nil {
		return uris, nil // all allowed
	}
	return kept, nil
}

// appendAck writes notifications/subscriptions/acknowledged with the honoured filter.
func appendAck(dst, id []byte, lists uint8, uris []string, extra []byte) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{`...)
	dst = appendSubscriptionMeta(dst, id)
	dst = append(dst, `,"notifications":{`...)
	sep := false
	for k, name := range listChangedFields {
		if lists&(1<<k) == 0 {
			continue
		}
		if sep {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = append(dst, name...)
		dst = append(dst, `":true`...)
		sep = true
	}
	if len(uris) > 0 {
		if sep {
			dst = append(dst, ',')
		}
		dst = append(dst, `"resourceSubscriptions":[`...)
		for i, u := range uris {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = decode.AppendString(dst, u, false)
		}
		dst = append(dst, ']')
		sep = true
	}
	if len(extra) > 0 {
		if sep {
			dst = append(dst, ',')
		}
		dst = append(dst, extra...)
	}
	return append(dst, "}}}"...)
}

// appendListChanged writes the list_changed notification of list kind k.
func appendListChanged(dst, id []byte, k int) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":"`...)
	dst = append(dst, listChangedMethod[k]...)
	dst = append(dst, `","params":{`...)
	dst = appendSubscriptionMeta(dst, id)
	return append(dst, "}}"...)
}

// appendResourceUpdated writes notifications/resources/updated for uri.
func appendResourceUpdated(dst, id []byte, uri string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":`...)
	dst = decode.AppendString(dst, uri, false)
	dst = append(dst, ',')
	dst = appendSubscriptionMeta(dst, id)
	return append(dst, "}}"...)
}

// appendSubscriptionMeta writes `"_meta":{"io.modelcontextprotocol/subscriptionId":<id>}`.
func appendSubscriptionMeta(dst, id []byte) []byte {
	dst = append(dst, `"_meta":{"`+metaSubscriptionID+`":`...)
	dst = append(dst, id...)
	return append(dst, '}')
}

// appendListenResult writes the completion response that ends a listen stream gracefully.
func (s *Server) appendListenResult(dst, id []byte) []byte {
	extra := make([]byte, 0, len(metaSubscriptionID)+len(id)+8)
	extra = append(extra, `{"`+metaSubscriptionID+`":`...)
	extra = append(extra, id...)
	extra = append(extra, '}')
	dst = beginResult(dst, id, resultComplete)
	return s.endResult(dst, extra)
}

// listenBufs holds the buffers listen streams write their notifications into, so an idle
// stream keeps none.
var listenBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

func getListenBuf() *[]byte { return listenBufs.Get().(*[]byte) }

func putListenBuf(b *[]byte) {
	if cap(*b) > 64<<10 {
		return // an ack with many long URIs: let it go
	}
	*b = (*b)[:0]
	listenBufs.Put(b)
}
