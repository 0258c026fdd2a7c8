package streamable

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// sessionKey is the StateKey the replicas of these tests share.
var sessionKey = []byte("session-test-key-0123456789abcdef")

// sessionCore is legacyCore with a shared StateKey and, when bus is set, a shared EventBus.
func sessionCore(t testing.TB, bus fastmcp.EventBus) *fastmcp.Server {
	t.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{StateKey: sessionKey, EventBus: bus})
	require.NoError(t, err)
	fastmcp.AddTool(s, fastmcp.Tool{Name: "echo", Description: "Echo"}, func(_ context.Context, _ *fastmcp.Request, in echoArgs) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	s.AddResource(fastmcp.Resource{URI: "test://w", Name: "watched"}, func(context.Context, *fastmcp.Request, string) ([]fastmcp.ResourceContents, error) {
		return []fastmcp.ResourceContents{{URI: "test://w", Text: "w"}}, nil
	})
	return s
}

// testBus is an EventBus shared by several Servers in one process, as NATS or PostgreSQL
// are across processes: every event reaches every subscriber, synchronously.
type testBus struct {
	mu   sync.Mutex
	subs map[int]func(fastmcp.Event)
	n    int
}

func (b *testBus) Publish(e fastmcp.Event) {
	b.mu.Lock()
	subs := make([]func(fastmcp.Event), 0, len(b.subs))
	for _, f := range b.subs {
		subs = append(subs, f)
	}
	b.mu.Unlock()
	for _, f := range subs {
		f(e)
	}
}

func (b *testBus) Subscribe(deliver func(fastmcp.Event)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[int]func(fastmcp.Event){}
	}
	b.n++
	n := b.n
	b.subs[n] = deliver
	return func() {
		b.mu.Lock()
		delete(b.subs, n)
		b.mu.Unlock()
	}
}

func sessionConfig() ListenerConfig {
	return ListenerConfig{Config: Config{LegacySessions: true}}
}

// initSession initializes at addr and returns the session id.
func initSession(t testing.TB, addr string) string {
	t.Helper()
	resp, body := exchangeAt(t, addr, legacyPost(addr, initializeBody("1", v1125), ""))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	id := resp.Header.Get(HeaderSessionID)
	require.NotEmpty(t, id, "initialize answers with a session id")
	return id
}

// sessionPost is a literal initialize-era POST of body in session id.
func sessionPost(addr, id, body string) string {
	return legacyPost(addr, body, v1125, HeaderSessionID+": "+id)
}

// sessionGet is a literal GET of session id's stream, extra lines after.
func sessionGet(addr, id string, extra ...string) string {
	raw := "GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\nMCP-Protocol-Version: " + v1125 + "\r\n"
	if id != "" {
		raw += HeaderSessionID + ": " + id + "\r\n"
	}
	for _, e := range extra {
		raw += e + "\r\n"
	}
	return raw + "\r\n"
}

// sseEvent is one event as read off the wire.
type sseEvent struct{ id, data string }

// openGet sends a GET and reads its head: an event stream to read events from.
func openGet(t testing.TB, addr, raw string) *legacyStream {
	t.Helper()
	s := openPost(t, addr, raw)
	t.Cleanup(func() { s.conn.Close() }) // before the body's Close, which would drain a chunked stream
	require.Equal(t, http.StatusOK, s.resp.StatusCode)
	require.True(t, s.isStream(), "content type %q", s.resp.Header.Get("Content-Type"))
	return s
}

// nextEvent reads the next event with its id, skipping keepalive comments; ok is false at
// the end of the stream.
func (s *legacyStream) nextEvent() (ev sseEvent, ok bool) {
	s.t.Helper()
	var lines []string
	seen := false
	for {
		line, err := s.br.ReadString('\n')
		if errors.Is(err, io.EOF) && line == "" && !seen {
			return ev, false
		}
		require.NoError(s.t, err, "reading the event stream")
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && seen:
			ev.data = strings.Join(lines, "\n")
			return ev, true
		case strings.HasPrefix(line, "id: "):
			ev.id, seen = strings.TrimPrefix(line, "id: "), true
		case strings.HasPrefix(line, "data: "):
			lines, seen = append(lines, strings.TrimPrefix(line, "data: ")), true
		case strings.HasPrefix(line, "event: "):
			seen = true
		}
	}
}

// requireEnd reads the stream to its end.
func (s *legacyStream) requireEnd() {
	s.t.Helper()
	ev, ok := s.nextEvent()
	require.False(s.t, ok, "the stream ends, not %+v", ev)
}

const (
	subscribeW       = `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://w"}}`
	updatedW         = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://w"}}`
	toolsChanged     = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	promptsChanged   = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`
	resourcesChanged = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`
	emptyResult2     = `{"jsonrpc":"2.0","id":2,"result":{}}`
	notFound3        = `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Session not found: initialize a new session"}}`
)

// The session's life on the wire, on every stack: initialize answers with the id and
// advertises what the stream delivers, GET opens the stream, a subscription's updates and
// list_changed arrive on it with ids, DELETE ends it and the id, then gets 404.
func TestSessionWire(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			core := sessionCore(t, nil)
			addr, _ := startStack(t, stack, core, sessionConfig())
			resp, body := exchangeAt(t, addr, legacyPost(addr, initializeBody("1", v1125), ""))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}},"serverInfo":{"name":"test","version":"1.0.0"}}}`, body)
			id := resp.Header.Get(HeaderSessionID)
			require.NotEmpty(t, id)
			for _, c := range []byte(id) {
				require.True(t, c >= 0x21 && c <= 0x7e, "visible ASCII only")
			}

			_, body = exchangeAt(t, addr, sessionPost(addr, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
			assert.Empty(t, body)
			get := openGet(t, addr, sessionGet(addr, id))
			assert.Equal(t, "no-cache", get.resp.Header.Get("Cache-Control"))
			_, body = exchangeAt(t, addr, sessionPost(addr, id, subscribeW))
			require.Equal(t, emptyResult2, body)

			core.NotifyResourceUpdated("test://other") // not subscribed
			core.NotifyResourceUpdated("test://w")
			ev, ok := get.nextEvent()
			require.True(t, ok)
			assert.Equal(t, updatedW, ev.data)
			lineage, seq, parsed := parseEventID(ev.id)
			require.True(t, parsed, ev.id)
			assert.Equal(t, uint64(1), seq)

			fastmcp.AddTool(core, fastmcp.Tool{Name: "more", Description: "More"}, func(context.Context, *fastmcp.Request, echoArgs) (fastmcp.ToolResult, error) {
				return fastmcp.ToolResult{}, nil
			})
			ev, ok = get.nextEvent()
			require.True(t, ok)
			assert.Equal(t, sseEvent{id: lineage + "-2", data: toolsChanged}, ev)

			resp, body = exchangeAt(t, addr, "DELETE /mcp HTTP/1.1\r\nHost: "+addr+"\r\n"+HeaderSessionID+": "+id+"\r\n\r\n")
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			get.requireEnd()
			resp, body = exchangeAt(t, addr, sessionPost(addr, id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`))
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
			assert.Equal(t, notFound3, body)
			resp, _ = exchangeAt(t, addr, sessionGet(addr, id))
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		})
	}
}

// What a request with a missing, bad or expired session gets; and without the option,
// nothing changes: no id, GET 405.
func TestSessionRefusals(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			cfg := sessionConfig()
			cfg.SessionTTL = time.Millisecond
			addr, _ := startStack(t, stack, sessionCore(t, nil), cfg)
			cases := []struct {
				name, raw string
				status    int
				body      string
			}{
				{"no session", legacyPost(addr, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, v1125), 400,
					`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is required"}}`},
				{"unknown session", sessionPost(addr, "AZJLLC-forged", `{"jsonrpc":"2.0","id":3,"method":"ping"}`), 404, notFound3},
				{"repeated", legacyPost(addr, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, v1125, HeaderSessionID+": a", HeaderSessionID+": b"), 400,
					`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is repeated"}}`},
				{"notification, unknown session", sessionPost(addr, "forged", `{"jsonrpc":"2.0","method":"notifications/initialized"}`), 404,
					`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Session not found: initialize a new session"}}`},
				{"GET, no session", sessionGet(addr, ""), 400,
					`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Bad Request: Mcp-Session-Id header is required"}}`},
				{"GET, not an event stream", "GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: application/json\r\n" + HeaderSessionID + ": x\r\n\r\n", 406,
					`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Not Acceptable: Accept must list text/event-stream"}}`},
			}
			for _, c := range cases {
				resp, body := exchangeAt(t, addr, c.raw)
				assert.Equal(t, c.status, resp.StatusCode, c.name)
				assert.Equal(t, c.body, body, c.name)
			}
			// SessionTTL: a session past it is not found; a fresh one works.
			id := initSession(t, addr)
			time.Sleep(5 * time.Millisecond) // past the 1 ms TTL, whatever the scheduling
			resp, body := exchangeAt(t, addr, sessionPost(addr, id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`))
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
			assert.Equal(t, notFound3, body)
			// A 2026-07-28 request ignores the header.
			resp, _ = exchangeAt(t, addr, postTo(addr, `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{`+meta+`}}`, HeaderSessionID+": forged", "Mcp-Method: tools/list"))
			assert.Equal(t, http.StatusOK, resp.StatusCode)
		})
	}
	for _, stack := range bothStacks {
		t.Run(stack+"/off", func(t *testing.T) {
			addr, _ := startStack(t, stack, sessionCore(t, nil), ListenerConfig{})
			resp, body := exchangeAt(t, addr, legacyPost(addr, initializeBody("1", v1125), ""))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Empty(t, resp.Header.Values(HeaderSessionID))
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"resources":{},"tools":{}},"serverInfo":{"name":"test","version":"1.0.0"}}}`, body)
			resp, _ = exchangeAt(t, addr, sessionGet(addr, "x"))
			assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
			resp, _ = exchangeAt(t, addr, legacyPost(addr, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, v1125))
			assert.Equal(t, http.StatusOK, resp.StatusCode, "sessionless as before")
		})
	}
}

// MaxSessionSubscriptions: the subscription past it is refused with the documented error;
// the others stand.
func TestSessionSubscriptionLimit(t *testing.T) {
	cfg := sessionConfig()
	cfg.MaxSessionSubscriptions = 2
	core := sessionCore(t, nil)
	addr, _ := startStack(t, stackNative, core, cfg)
	id := initSession(t, addr)
	get := openGet(t, addr, sessionGet(addr, id))
	for i, uri := range []string{"test://a", "test://b"} {
		_, body := exchangeAt(t, addr, sessionPost(addr, id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+uri+`"}}`))
		require.Equal(t, emptyResult2, body, i)
	}
	_, body := exchangeAt(t, addr, sessionPost(addr, id, `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"test://c"}}`))
	assert.Equal(t, `{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: at most 2 resource subscriptions per session"}}`, body)
	_, body = exchangeAt(t, addr, sessionPost(addr, id, `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"test://a"}}`))
	assert.Equal(t, emptyResult2, body, "subscribing again is the same subscription")
	core.NotifyResourceUpdated("test://c")
	core.NotifyResourceUpdated("test://b")
	ev, ok := get.nextEvent()
	require.True(t, ok)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://b"}}`, ev.data)
}

// Last-Event-ID resumes within MaxReplayEvents; from before them the stream says so,
// then has the client re-read everything.
func TestSessionResume(t *testing.T) {
	for _, stack := range bothStacks {
		t.Run(stack, func(t *testing.T) {
			cfg := sessionConfig()
			cfg.MaxReplayEvents = 3
			core := sessionCore(t, nil)
			addr, _ := startStack(t, stack, core, cfg)
			id := initSession(t, addr)
			get := openGet(t, addr, sessionGet(addr, id))
			_, body := exchangeAt(t, addr, sessionPost(addr, id, subscribeW))
			require.Equal(t, emptyResult2, body)
			core.NotifyResourceUpdated("test://w")
			first, ok := get.nextEvent()
			require.True(t, ok)
			lineage, _, _ := parseEventID(first.id)

			// Two events the client misses, then it resumes after the first.
			get.conn.Close()
			core.Publish(fastmcp.Event{Kind: fastmcp.PromptsListChanged})
			core.Publish(fastmcp.Event{Kind: fastmcp.ResourcesListChanged})
			get = openGet(t, addr, sessionGet(addr, id, "Last-Event-ID: "+first.id))
			for _, want := range []sseEvent{{lineage + "-2", promptsChanged}, {lineage + "-3", resourcesChanged}} {
				ev, ok := get.nextEvent()
				require.True(t, ok)
				assert.Equal(t, want, ev)
			}

			// Four more while away: the window (3) no longer holds the one after -3.
			get.conn.Close()
			for _, n := range []string{"1", "2", "3", "4"} {
				core.Publish(SessionNotification([]byte(id), fastmcp.LogOff, []byte(`{"jsonrpc":"2.0","method":"notifications/x","params":{"n":`+n+`}}`)))
			}
			get = openGet(t, addr, sessionGet(addr, id, "Last-Event-ID: "+lineage+"-3"))
			want := []string{
				`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"mcp-session","data":{"message":"Events after Last-Event-ID could not be replayed: they are older than the replay window; re-list and re-read what you need","lastEventId":"` + lineage + `-3"}}}`,
				toolsChanged, promptsChanged, resourcesChanged, updatedW,
			}
			for _, w := range want {
				ev, ok := get.nextEvent()
				require.True(t, ok)
				assert.Equal(t, "", ev.id, "the resync is not replayable")
				assert.Equal(t, w, ev.data)
			}
			core.NotifyResourceUpdated("test://w")
			ev, ok := get.nextEvent()
			require.True(t, ok)
			assert.Equal(t, sseEvent{lineage + "-8", updatedW}, ev, "numbering continues")

			// An id no replica knows: said plainly too.
			get.conn.Close()
			get = openGet(t, addr, sessionGet(addr, id, "Last-Event-ID: 0000-9"))
			ev, ok = get.nextEvent()
			require.True(t, ok)
			assert.Contains(t, ev.data, `"message":"Events after Last-Event-ID could not be replayed: no replica holds that stream any more; re-list and re-read what you need","lastEventId":"0000-9"`)
		})
	}
}

// Two replicas sharing a bus and a key act as one endpoint: a session initialized on A
// streams on A, subscribes and sets its level through B, gets B's updates and resumes on B
// with A's events, and a DELETE on B ends it on both.
func TestSessionAcrossReplicas(t *testing.T) {
	bus := &testBus{}
	coreA, coreB := sessionCore(t, bus), sessionCore(t, bus)
	addrA, _ := startStack(t, stackNative, coreA, sessionConfig())
	addrB, _ := startStack(t, stackNetHTTP, coreB, sessionConfig())
	id := initSession(t, addrA)
	get := openGet(t, addrA, sessionGet(addrA, id))

	_, body := exchangeAt(t, addrB, sessionPost(addrB, id, subscribeW))
	require.Equal(t, emptyResult2, body)
	_, body = exchangeAt(t, addrB, sessionPost(addrB, id, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"error"}}`))
	require.Equal(t, emptyResult2, body)
	coreB.NotifyResourceUpdated("test://w")
	ev, ok := get.nextEvent()
	require.True(t, ok)
	assert.Equal(t, updatedW, ev.data, "B's update reaches A's stream")

	// Log messages for the session at its level (error, set through B), from either replica.
	sid := []byte(id)
	coreB.Publish(SessionNotification(sid, fastmcp.LogInfo, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"below"}}`)))
	coreB.Publish(SessionNotification(sid, fastmcp.LogError, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"at"}}`)))
	ev, ok = get.nextEvent()
	require.True(t, ok)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":"at"}}`, ev.data)

	// The client comes back through B: A hands the stream over with what it missed.
	get.conn.Close()
	coreA.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	lineage, seq, _ := parseEventID(ev.id)
	getB := openGet(t, addrB, sessionGet(addrB, id, "Last-Event-ID: "+ev.id))
	ev, ok = getB.nextEvent()
	require.True(t, ok)
	assert.Equal(t, sseEvent{eventID(lineage, seq+1), toolsChanged}, ev)
	coreA.NotifyResourceUpdated("test://w") // the subscription moved with the stream
	ev, ok = getB.nextEvent()
	require.True(t, ok)
	assert.Equal(t, sseEvent{eventID(lineage, seq+2), updatedW}, ev)

	resp, _ := exchangeAt(t, addrA, "DELETE /mcp HTTP/1.1\r\nHost: "+addrA+"\r\n"+HeaderSessionID+": "+id+"\r\n\r\n")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	getB.requireEnd()
	resp, body = exchangeAt(t, addrB, sessionPost(addrB, id, `{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	assert.Equal(t, http.StatusNotFound, resp.StatusCode, "B heard the end")
	assert.Equal(t, notFound3, body)
}

// MaxEndedSessions bounds what a replica remembers of ended sessions: past it the oldest
// goes.
func TestTopicMemoBounded(t *testing.T) {
	m := newTopicMemo(2)
	until := time.Now().Add(time.Hour)
	m.put("a", 1, until)
	m.put("b", 2, until)
	m.put("a", 3, until) // an update, not an entry
	m.put("c", 4, until)
	assert.Equal(t, 2, m.len())
	_, ok := m.get("a", time.Now())
	assert.False(t, ok, "the oldest is forgotten")
	v, ok := m.get("c", time.Now())
	assert.True(t, ok)
	assert.Equal(t, int8(4), v)
	_, ok = m.get("b", until)
	assert.False(t, ok, "expired")
}

// The handover's encoding round-trips, events and all.
func TestSessionStateWire(t *testing.T) {
	st := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	st.subscribe("test://w", true, 10)
	st.add(msgToolsChanged, 10)
	b, err := json.Marshal(st.snapshot())
	require.NoError(t, err)
	var w stateWire
	require.NoError(t, json.Unmarshal(b, &w))
	other := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	other.merge(w, 10)
	other.adopt(w, other.next, 0, 10)
	evs, lineage, gap, _ := other.since(0, nil)
	assert.False(t, gap)
	assert.Equal(t, st.lineage, lineage)
	require.Len(t, evs, 1)
	assert.Equal(t, string(msgToolsChanged), string(evs[0].D))
	_ = bufio.NewReader
}

// A resumed stream's adopted events up to Last-Event-ID were written already, elsewhere:
// the same event published after them is new, not folded into one of them.
func TestAdoptedEventsBeforeResumeAreWritten(t *testing.T) {
	held := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	held.add(resourceUpdated("test://w"), 10) // 1, written by the stream that held it
	held.add(msgToolsChanged, 10)             // 2, the client's Last-Event-ID
	st := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	st.adopt(held.snapshot(), st.next, 2, 10)
	assert.Equal(t, uint64(2), st.startAfter(2))
	st.add(resourceUpdated("test://w"), 10)
	evs, _, gap, _ := st.since(2, nil)
	assert.False(t, gap)
	require.Len(t, evs, 1, "the update after the resume is written")
	assert.Equal(t, sseEvent{eventID(held.lineage, 3), string(resourceUpdated("test://w"))}, sseEvent{eventID(held.lineage, evs[0].S), string(evs[0].D)})
}

// An event given to the stream to write counts as written: the same event added before the
// write ends is written again, not lost.
func TestEventOnItsWayIsWritten(t *testing.T) {
	st := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	st.add(msgToolsChanged, 10)
	evs, _, _, _ := st.since(0, nil)
	require.Len(t, evs, 1)
	st.add(msgToolsChanged, 10) // published while evs[0] is on the wire
	again, _, _, _ := st.since(evs[0].S, nil)
	require.Len(t, again, 1)
	assert.Equal(t, uint64(2), again[0].S)
}

// Events the resuming replica gathered before its stream attached were the other replica's
// too: adopting drops them; those gathered since follow the adopted ones.
func TestAdoptKeepsOnlyWhatArrivedSinceAttach(t *testing.T) {
	held := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	held.add(resourceUpdated("test://w"), 10)
	st := newSessionState("t", time.Now().Add(time.Hour), fastmcp.LogInfo)
	st.add(resourceUpdated("test://w"), 10) // detached here while the other held the stream
	from := st.next
	st.add(msgPromptsChanged, 10) // after the attach, before the handover
	st.adopt(held.snapshot(), from, 1, 10)
	evs, _, _, _ := st.since(1, nil)
	require.Len(t, evs, 1)
	assert.Equal(t, uint64(2), evs[0].S)
	assert.Equal(t, string(msgPromptsChanged), string(evs[0].D))
}
