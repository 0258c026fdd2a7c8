package fastmcp

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memBus is an EventBus shared by several Servers, standing in for a pub/sub system between
// replicas. It delivers synchronously, like a bus whose deliver functions never block.
type memBus struct {
	mu   sync.Mutex
	subs map[int]func(Event)
	next int
}

func newMemBus() *memBus { return &memBus{subs: map[int]func(Event){}} }

func (b *memBus) Publish(e Event) {
	b.mu.Lock()
	fns := make([]func(Event), 0, len(b.subs))
	for _, f := range b.subs {
		fns = append(fns, f)
	}
	b.mu.Unlock()
	for _, f := range fns {
		f(e)
	}
}

func (b *memBus) Subscribe(deliver func(Event)) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.next
	b.next++
	b.subs[id] = deliver
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

func (b *memBus) subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

func TestEventBusAcrossReplicas(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bus := newMemBus()
		a := newTestServer(t, &Config{EventBus: bus})
		b := newTestServer(t, &Config{EventBus: bus})
		require.Equal(t, 2, bus.subscribers(), "each Server subscribes once")
		addKinds(b, kindTool|kindResource)

		c := startListen(t, b, listenRequest(`"r"`, `{"toolsListChanged":true,"resourceSubscriptions":["file:///shared"]}`), 0)
		c.next(t)

		// A change on replica a reaches the stream on replica b.
		a.AddRawTool(Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *Request, json.RawMessage) (ToolResult, error) { return ToolResult{}, nil })
		assert.Equal(t, listChangedOf("tools", `"r"`), c.next(t))
		a.NotifyResourceUpdated("file:///shared")
		assert.Equal(t, updatedOf("file:///shared", `"r"`), c.next(t))
		c.idle(t)

		// Closing b's subscriptions ends its streams and its subscription to the bus.
		b.CloseSubscriptions()
		assert.Equal(t, listenResult(`"r"`), c.end(t))
		assert.Equal(t, 1, bus.subscribers())
		a.NotifyResourceUpdated("file:///shared") // reaches a only
	})
}

func TestHubIsTheDefaultBus(t *testing.T) {
	h, bus := newHub(DefaultSubscriptionBuffer, DefaultMaxSubscriptionBytes, nil)
	require.Same(t, h, bus)

	var mu sync.Mutex
	var got []Event
	record := func(e Event) {
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}
	cancel1 := bus.Subscribe(record)
	cancel2 := bus.Subscribe(func(Event) {})
	bus.Publish(Event{Kind: ToolsListChanged})
	bus.Publish(Event{Kind: ResourceUpdated, URI: "file:///a"})
	cancel2()
	cancel1()
	cancel1() // idempotent
	bus.Publish(Event{Kind: PromptsListChanged})
	assert.Equal(t, []Event{{Kind: ToolsListChanged}, {Kind: ResourceUpdated, URI: "file:///a"}}, got)
	assert.Empty(t, h.taps)
}

func TestHubSignalCoalesces(t *testing.T) {
	h, _ := newHub(DefaultSubscriptionBuffer, DefaultMaxSubscriptionBytes, nil)
	l, _ := h.subscribe(0b101, nil, 1) // tools and resources
	defer h.unsubscribe(l)
	assert.Nil(t, l.waitOn(1))
	assert.False(t, l.changed(h, 0))
	assert.False(t, l.changed(h, 1), "not opted in")
	for range 3 {
		h.deliver(Event{Kind: ToolsListChanged})
		h.deliver(Event{Kind: PromptsListChanged})
	}
	assert.True(t, l.changed(h, 0))
	assert.False(t, l.changed(h, 0), "three events, one report")
	assert.False(t, l.changed(h, 1))
	assert.False(t, l.changed(h, 2))
	h.deliver(Event{Kind: ResourcesListChanged})
	assert.True(t, l.changed(h, 2))
	assert.Nil(t, l.wake, "no URIs: no queue")
	assert.Empty(t, h.byURI)
}

// TestHubChurn subscribes and cancels from many goroutines while events are published: the
// index ends empty and every queue stays within its bound.
func TestHubChurn(t *testing.T) {
	const buffer = 3
	h, _ := newHub(buffer, DefaultMaxSubscriptionBytes, nil)
	stop := make(chan struct{})
	var pubs sync.WaitGroup
	for p := range 4 {
		pubs.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				h.deliver(Event{Kind: EventKind(1 + i%4), URI: "file:///" + strconv.Itoa((i+p)%8)})
			}
		})
	}
	var subs sync.WaitGroup
	for g := range 8 {
		subs.Go(func() {
			for i := range 500 {
				uris := []string{"file:///" + strconv.Itoa(g%8), "file:///" + strconv.Itoa(i%8)}
				if uris[0] == uris[1] {
					uris = uris[:1]
				}
				l, _ := h.subscribe(uint8(i%8), uris, 1)
				l.changed(h, i%3)
				l.mu.Lock()
				n := len(l.queue)
				l.mu.Unlock()
				assert.LessOrEqual(t, n, buffer)
				l.take()
				h.unsubscribe(l)
			}
		})
	}
	subs.Wait()
	close(stop)
	pubs.Wait()
	assert.Empty(t, h.byURI)
	assert.Zero(t, h.streams.Load())
	assert.Zero(t, h.held.Load(), "every byte accounted for is returned")
}
