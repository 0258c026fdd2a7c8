package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
)

// legacyCore stands in for the protocol core's initialize-era dialects with the contract of
// transport.Endpoint's Serve, Answer and SubscribeEvents, so the transport's part (state,
// classification, the server-to-client round trip, events) is tested on its own. Modern
// requests and Classify go to the real server.
//
//   - initialize answers the requested legacy version (2025-11-25 for any other) and reports
//     the new state; logging/setLevel answers {} and reports the level;
//   - tools/call "probe" answers the state it was given as text;
//   - tools/call "ask" sends elicitation/create with a minted id through the Requester and
//     answers with the client's result; when its context ends it withdraws the request
//     with notifications/cancelled and answers nothing;
//   - SubscribeEvents' function writes the lines sent on events.
type legacyCore struct {
	*transport.Endpoint
	initGate    chan struct{} // when not nil, initialize waits for it, after initStarted
	initStarted chan struct{}
	evPanic     bool // its events function panics once started

	mu      sync.Mutex
	minted  int
	waiting map[string]chan []byte // the server request's id literal -> the client's result

	asked  chan string // the id literal of each server request, once written
	events chan string // lines for the events function to write
	evRuns chan string // "start" and "end" of each events function
}

func newLegacyCore(s *fastmcp.Server) *legacyCore {
	return &legacyCore{
		Endpoint: transport.For(s),
		waiting:  map[string]chan []byte{},
		asked:    make(chan string, 100),
		events:   make(chan string),
		evRuns:   make(chan string, 100),
	}
}

func (h *legacyCore) run(ctx context.Context) func(Config) error {
	return func(cfg Config) error { return serve(ctx, h, h.Decoder(), cfg) }
}

var levelNames = map[string]fastmcp.LogLevel{"debug": fastmcp.LogDebug, "info": fastmcp.LogInfo, "error": fastmcp.LogError}

func (h *legacyCore) Serve(ctx context.Context, c *fastmcp.ConnState, m *decode.Message, sink fastmcp.Sink, dst []byte) fastmcp.Reply {
	if !c.Dialect.Legacy() {
		return h.Endpoint.Serve(ctx, c, m, sink, dst)
	}
	params := m.Params().Raw()
	result := func(r string) []byte {
		return fmt.Appendf(dst, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID().Raw(), r)
	}
	switch string(m.Method().Text()) {
	case "initialize":
		if h.initGate != nil {
			h.initStarted <- struct{}{}
			<-h.initGate
		}
		d := fastmcp.ParseDialect(decode.Lookup(params, "protocolVersion").Text())
		if !d.Legacy() {
			d = fastmcp.Legacy20251125
		}
		next := &fastmcp.ConnState{Dialect: d, Capabilities: bytes.Clone(decode.Lookup(params, "capabilities").Raw()), LogLevel: c.LogLevel}
		return fastmcp.Reply{Body: result(`{"protocolVersion":"` + d.Version() +
			`","capabilities":{"logging":{},"tools":{"listChanged":true}},"serverInfo":{"name":"stand-in","version":"1.0.0"}}`), State: next}
	case "ping": // precomputed, as the core's ping: what the transport costs alone
		return fastmcp.Reply{Body: append(append(append(dst, `{"jsonrpc":"2.0","id":`...), m.ID().Raw()...), `,"result":{}}`...)}
	case "logging/setLevel":
		next := *c
		next.LogLevel = levelNames[decode.Lookup(params, "level").String()]
		return fastmcp.Reply{Body: result(`{}`), State: &next}
	case "tools/call":
		switch decode.Lookup(params, "name").String() {
		case "probe":
			text, _ := json.Marshal(fmt.Sprintf("%s caps=%s level=%d events=%t", c.Dialect, c.Capabilities, c.LogLevel, c.Events != nil))
			return fastmcp.Reply{Body: result(`{"content":[{"type":"text","text":` + string(text) + `}]}`)}
		case "ask":
			answer, ok := h.ask(ctx, sink)
			if !ok {
				return fastmcp.Reply{}
			}
			text, _ := json.Marshal("answered " + string(answer))
			return fastmcp.Reply{Body: result(`{"content":[{"type":"text","text":` + string(text) + `}]}`)}
		}
	}
	return fastmcp.Reply{Body: decode.AppendError(dst, m.ID().Raw(), -32601, "Method not found", nil, true)}
}

// ask makes one server-to-client request and waits for its answer or the end of ctx.
func (h *legacyCore) ask(ctx context.Context, sink fastmcp.Sink) ([]byte, bool) {
	h.mu.Lock()
	h.minted++
	id := fmt.Sprintf(`"srv-%d"`, h.minted)
	answer := make(chan []byte, 1)
	h.waiting[id] = answer
	h.mu.Unlock()
	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"elicitation/create","params":{"message":"Your name?",` +
		`"requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}`
	if err := sink.(fastmcp.Requester).Request(ctx, []byte(req)); err != nil {
		h.withdraw(id)
		return nil, false
	}
	h.asked <- id
	select {
	case a := <-answer:
		return a, true
	case <-ctx.Done():
		if h.withdraw(id) {
			_ = sink.Notify(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`,"reason":"request ended"}}`))
		}
		return nil, false
	}
}

func (h *legacyCore) withdraw(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.waiting[id]
	delete(h.waiting, id)
	return ok
}

// outstanding counts the server requests awaiting an answer.
func (h *legacyCore) outstanding() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.waiting)
}

func (h *legacyCore) Answer(m *decode.Message, _ string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	id := string(m.ID().Raw())
	answer, ok := h.waiting[id]
	if !ok {
		return false
	}
	delete(h.waiting, id)
	answer <- bytes.Clone(m.Result().Raw()) // m borrows the reader's buffer
	return true
}

func (h *legacyCore) SubscribeEvents(*fastmcp.LegacyEvents) func(context.Context, fastmcp.Sink) error {
	return h.serveEvents
}

func (h *legacyCore) serveEvents(ctx context.Context, sink fastmcp.Sink) error {
	h.evRuns <- "start"
	defer func() { h.evRuns <- "end" }()
	if h.evPanic {
		panic("events")
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case line := <-h.events:
			if err := sink.Notify(ctx, []byte(line)); err != nil {
				return err
			}
		}
	}
}
