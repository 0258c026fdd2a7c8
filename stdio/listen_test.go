package stdio

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/pool"
)

// streams stands in for the protocol core's subscriptions/listen, with the same contract:
// Serve sends the acknowledgement through the sink, then the events published to the
// stream, and returns the completion response when the test completes it, or nothing when
// its context ends. Other methods go to the real server.
type streams struct {
	*transport.Endpoint
	mu     sync.Mutex
	open   map[string]*stream
	opened chan string // the id literal of each stream, once acknowledged
	closed chan string // "id:why" when a stream's Handle returns
}

type stream struct {
	events   chan string
	sent     chan struct{} // one per event, once its Notify has returned nil
	done     chan struct{} // closed when Handle returns
	complete chan struct{}
}

func newStreams(s *fastmcp.Server) *streams {
	return &streams{Endpoint: transport.For(s), open: map[string]*stream{}, opened: make(chan string, 100), closed: make(chan string, 100)}
}

func (h *streams) run(ctx context.Context) func(Config) error {
	return func(cfg Config) error { return serve(ctx, h, h.Decoder(), cfg) }
}

func (h *streams) Serve(ctx context.Context, state *fastmcp.ConnState, m *decode.Message, sink fastmcp.Sink, dst []byte) fastmcp.Reply {
	if string(m.Method().Text()) != fastmcp.MethodListen {
		return h.Endpoint.Serve(ctx, state, m, sink, dst)
	}
	id := string(m.ID().Raw())
	st := &stream{events: make(chan string), sent: make(chan struct{}, 1), done: make(chan struct{}), complete: make(chan struct{})}
	h.mu.Lock()
	h.open[id] = st
	h.mu.Unlock()
	defer close(st.done)
	defer func() {
		h.mu.Lock()
		if h.open[id] == st {
			delete(h.open, id)
		}
		h.mu.Unlock()
	}()
	subMeta := `"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}`
	ack := `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{` + subMeta + `,"notifications":{"resourceSubscriptions":["file:///a"]}}}`
	if err := sink.Notify(ctx, []byte(ack)); err != nil {
		h.closed <- id + ":ack failed"
		return fastmcp.Reply{}
	}
	h.opened <- id
	for {
		select {
		case uri := <-st.events:
			ev := `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"` + uri + `",` + subMeta + `}}`
			if err := sink.Notify(ctx, []byte(ev)); err != nil {
				h.closed <- id + ":event failed"
				return fastmcp.Reply{}
			}
			st.sent <- struct{}{}
		case <-st.complete:
			h.closed <- id + ":complete"
			return fastmcp.Reply{Body: append(dst, `{"jsonrpc":"2.0","id":`+id+`,"result":{"resultType":"complete",`+subMeta+`}}`...)}
		case <-ctx.Done():
			h.closed <- id + ":cancelled"
			return fastmcp.Reply{}
		}
	}
}

func (h *streams) stream(id string) *stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open[id]
}

// publish sends an event to the stream with the id literal and returns once the stream's
// Notify has returned: a later cancel then finds the stream waiting for its next event, not
// still inside the write (where a loaded machine may leave it after the line is out, and a
// cancel would make it report the write as failed).
func (h *streams) publish(id, uri string) {
	st := h.stream(id)
	st.events <- uri
	select {
	case <-st.sent:
	case <-st.done: // the write failed: the test reads why from closed
	}
}

// finish ends the stream gracefully.
func (h *streams) finish(id string) { close(h.stream(id).complete) }

// listen returns a subscriptions/listen request line.
func listen(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["file:///a"]},` + meta + `}}`
}

// subscriptionID returns params._meta's subscriptionId of a notification.
func subscriptionID(tb testing.TB, m message) string {
	tb.Helper()
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(tb, json.Unmarshal(m.Params, &p), "line %q", m.raw)
	return string(p.Meta["io.modelcontextprotocol/subscriptionId"])
}

// Case 41: streams are multiplexed by subscriptionId; the client's cancel closes one with no
// final reply and frees its id at once; the server's graceful end writes the completion
// response; the end of input closes the rest without a reply.
func TestListenMultiplexed(t *testing.T) {
	s, _ := newTestServer(t)
	h := newStreams(s)
	c := startClient(t, h.run(context.Background()), Config{})

	c.send(listen(`"a"`), listen("7"))
	acks := map[string]bool{}
	for range 2 {
		m := c.recv()
		require.Equal(t, "notifications/subscriptions/acknowledged", m.Method)
		acks[subscriptionID(t, m)] = true
	}
	require.Equal(t, map[string]bool{`"a"`: true, "7": true}, acks)
	<-h.opened
	<-h.opened

	h.publish(`"a"`, "file:///a")
	m := c.recv()
	require.Equal(t, "notifications/resources/updated", m.Method)
	require.Equal(t, `"a"`, subscriptionID(t, m))
	h.publish("7", "file:///seven")
	m = c.recv()
	require.Equal(t, "7", subscriptionID(t, m))
	require.JSONEq(t, `{"uri":"file:///seven","_meta":{"io.modelcontextprotocol/subscriptionId":7}}`, string(m.Params))

	// Requests are served beside the streams; a stream's id is in flight.
	c.send(call("1", "echo", `{"text":"beside"}`))
	require.Equal(t, "beside", c.recv().text(t))
	c.send(call(`"a"`, "echo", `{"text":"dup"}`))
	requireError(t, c.recv(), `"a"`, -32600, "Duplicate in-flight request id")

	// The client cancels "a": no reply, and "a" can open again at once.
	c.send(cancel(`"a"`), listen(`"a"`))
	require.Equal(t, `"a":cancelled`, <-h.closed)
	m = c.recv()
	require.Equal(t, "notifications/subscriptions/acknowledged", m.Method)
	require.Equal(t, `"a"`, subscriptionID(t, m))
	require.Equal(t, `"a"`, <-h.opened)

	// The server ends 7 gracefully: its completion response.
	h.finish("7")
	require.Equal(t, "7:complete", <-h.closed)
	m = c.recv()
	require.Equal(t, "7", string(m.ID))
	require.JSONEq(t, `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":7}}`, string(m.Result))
	c.send(call("7", "echo", `{"text":"seven"}`)) // its id is free
	require.Equal(t, "seven", c.recv().text(t))

	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest, "the end of input closes streams without a reply")
	require.Equal(t, `"a":cancelled`, <-h.closed)
}

// Case 42: when serving stops (here its context is cancelled), open streams are closed and
// running requests cancelled.
func TestListenClosedWhenServingStops(t *testing.T) {
	s, tt := newTestServer(t)
	h := newStreams(s)
	ctx, stop := context.WithCancel(context.Background())
	c := startClient(t, h.run(ctx), Config{})
	c.send(listen(`"a"`), call("1", "wait", `{"key":"w"}`))
	require.Equal(t, `"a"`, <-h.opened)
	require.Equal(t, "w", <-tt.started)
	c.recv() // the acknowledgement
	stop()
	require.Equal(t, `"a":cancelled`, <-h.closed)
	require.Equal(t, "w:context canceled", <-tt.ended)
	rest, err := c.close()
	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, rest)
}

// MaxSubscriptions bounds one connection's streams; a cancelled stream's place is free at
// once.
func TestListenCapacity(t *testing.T) {
	s, _ := newTestServer(t)
	h := newStreams(s)
	ex := newExecutor(t, pool.Config{})
	c := startClient(t, h.run(context.Background()), Config{MaxSubscriptions: 1, Executor: ex})
	c.send(listen(`"a"`))
	<-h.opened
	c.recv()
	require.Equal(t, 1, ex.Slots().InUse())
	c.send(listen(`"b"`))
	requireError(t, c.recv(), `"b"`, -32603, "Server subscription capacity exhausted")
	c.send(cancel(`"a"`), listen(`"b"`))
	require.Equal(t, `"b"`, subscriptionID(t, c.recv()))
	<-h.opened
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
	require.Equal(t, 0, ex.Slots().InUse())
}

// Streams hold the executor's slots, shared by everyone who shares the executor, and none
// of its workers.
func TestListenUsesSlotsNotWorkers(t *testing.T) {
	s, _ := newTestServer(t)
	h := newStreams(s)
	ex := newExecutor(t, pool.Config{MaxConcurrency: 1, MaxQueue: pool.NoQueue, MaxSlots: 2})
	c := startClient(t, h.run(context.Background()), Config{Executor: ex})
	c.send(listen("1"), listen("2"))
	c.recv()
	c.recv()
	c.send(listen("3"))
	requireError(t, c.recv(), "3", -32603, "Server subscription capacity exhausted")
	c.send(call("4", "echo", `{"text":"a worker is free"}`))
	require.Equal(t, "a worker is free", c.recv().text(t))
	rest, err := c.close()
	require.NoError(t, err)
	require.Empty(t, rest)
}
