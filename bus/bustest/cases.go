package bustest

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// deliversToEverySubscriber: one event reaches each subscriber of every bus once, the
// publisher's own included.
func deliversToEverySubscriber(t *testing.T, b Backend) {
	a, other := replicas(t, b)
	subs := []*collector{subscribe(t, a), subscribe(t, a), subscribe(t, other)}
	a.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	other.Publish(fastmcp.Event{Kind: fastmcp.ResourceUpdated, URI: "file:///x"})
	for i, c := range subs {
		got := []fastmcp.Event{c.nextSkippingLost(t), c.nextSkippingLost(t)}
		assert.ElementsMatch(t, []fastmcp.Event{
			{Kind: fastmcp.ToolsListChanged}, {Kind: fastmcp.ResourceUpdated, URI: "file:///x"},
		}, got, "subscriber %d", i)
	}
	// Exactly once: a probe published after is the next event each sees.
	a.Publish(fastmcp.Event{Kind: fastmcp.PromptsListChanged})
	for _, c := range subs {
		assert.Equal(t, fastmcp.Event{Kind: fastmcp.PromptsListChanged}, c.nextSkippingLost(t))
	}
}

// fieldsRoundTrip: every field arrives as published, binary Data of every size up to the
// bound included.
func fieldsRoundTrip(t *testing.T, b Backend) {
	a, other := replicas(t, b)
	c := subscribe(t, other)
	every := make([]byte, 512)
	for i := range every {
		every[i] = byte(i)
	}
	big := bytes.Repeat([]byte{0, 0xff, '\'', '\\', 'x'}, fastmcp.MaxEventData/5+1)[:fastmcp.MaxEventData]
	mid := big[:9000] // past PostgreSQL's NOTIFY payload bound
	events := []fastmcp.Event{
		{Kind: fastmcp.ResourceUpdated, URI: "file:///a%20b?q=é"},
		{Kind: fastmcp.TaskChanged, Topic: "task-1", Data: []byte(`{"taskId":"task-1","status":"working"}`)},
		{Kind: fastmcp.SessionMessage, URI: "u", Topic: "session\x00with nul", Data: every},
		{Kind: fastmcp.Answer, Topic: "req-2", Data: mid},
		{Kind: fastmcp.Answer, Topic: "req-3", Data: big},
		{Kind: fastmcp.ResourcesListChanged},
	}
	for _, e := range events {
		a.Publish(e)
	}
	for i, want := range events {
		got := c.nextSkippingLost(t)
		assert.Equal(t, want.Kind, got.Kind, "event %d", i)
		assert.Equal(t, want.URI, got.URI, "event %d", i)
		assert.Equal(t, want.Topic, got.Topic, "event %d", i)
		assert.True(t, bytes.Equal(want.Data, got.Data), "event %d: Data of %d bytes came back as %d bytes", i, len(want.Data), len(got.Data))
	}
}

// concurrentPublishers: goroutines publishing on two buses at once; every event arrives once,
// each goroutine's in its order.
func concurrentPublishers(t *testing.T, b Backend) {
	a, other := replicas(t, b)
	c := subscribe(t, a)
	const goroutines, each = 4, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		bus := a
		if g%2 == 1 {
			bus = other
		}
		wg.Go(func() {
			for i := range each {
				bus.Publish(fastmcp.Event{Kind: fastmcp.TaskChanged, Topic: "g" + strconv.Itoa(g), Data: []byte(strconv.Itoa(i))})
			}
		})
	}
	wg.Wait()
	next := make(map[string]int)
	for range goroutines * each {
		e := c.next(t)
		require.Equal(t, fastmcp.TaskChanged, e.Kind, "no event may be lost or dropped here: %+v", e)
		require.Equal(t, strconv.Itoa(next[e.Topic]), string(e.Data), "publisher %s out of order", e.Topic)
		next[e.Topic]++
	}
	for g := range goroutines {
		assert.Equal(t, each, next["g"+strconv.Itoa(g)])
	}
}

// cancelStopsDelivery: after cancel returns, the subscriber is not called again, while the
// others are.
func cancelStopsDelivery(t *testing.T, b Backend) {
	a, other := replicas(t, b)
	var mu sync.Mutex
	var late []fastmcp.Event
	cancel := a.Subscribe(func(e fastmcp.Event) {
		mu.Lock()
		late = append(late, e)
		mu.Unlock()
	})
	c := subscribe(t, a)
	other.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	c.nextSkippingLost(t)
	cancel()
	mu.Lock()
	late = nil
	mu.Unlock()
	other.Publish(fastmcp.Event{Kind: fastmcp.PromptsListChanged})
	other.Publish(fastmcp.Event{Kind: fastmcp.ResourcesListChanged})
	assert.Equal(t, fastmcp.PromptsListChanged, c.nextSkippingLost(t).Kind)
	assert.Equal(t, fastmcp.ResourcesListChanged, c.nextSkippingLost(t).Kind)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, late, "a cancelled subscriber was called")
	cancel() // idempotent
}

// publishNeverBlocks: a burst far past any outbound buffer returns promptly; then either every
// event arrived in order, or the drops were counted and announced with EventsLost.
func publishNeverBlocks(t *testing.T, b Backend) {
	a, other := replicas(t, b)
	c := subscribe(t, other)
	own := subscribe(t, a)
	const n = 20000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			a.Publish(fastmcp.Event{Kind: fastmcp.TaskChanged, Topic: "burst", Data: []byte(strconv.Itoa(i))})
		}
	}()
	select {
	case <-done:
	case <-time.After(waitFor):
		t.Fatal("Publish blocked")
	}
	cb, counts := a.(counting)
	if counts {
		require.Eventually(t, func() bool { s := cb.Stats(); return s.Published+s.Dropped >= n }, waitFor, time.Millisecond,
			"every event is published or counted as dropped")
	}
	dropped := counts && cb.Stats().Dropped > 0
	for _, sub := range []*collector{c, own} {
		lost := false
		for i := 0; i < n; {
			e := sub.next(t)
			if e.Kind == fastmcp.EventsLost {
				lost = true
				break
			}
			require.Equal(t, strconv.Itoa(i), string(e.Data), "an event was lost unannounced")
			i++
		}
		if dropped {
			assert.True(t, lost, "drops are announced with EventsLost")
		}
	}
}

// oversized: an event over the bounds is refused by a counting bus, counted and announced,
// and the bus goes on.
func oversized(t *testing.T, b Backend) {
	a, other := replicas(t, b)
	cb, ok := a.(counting)
	if !ok {
		t.Skip("the bus keeps no counts")
	}
	own, c := subscribe(t, a), subscribe(t, other)
	before := cb.Stats().Dropped
	a.Publish(fastmcp.Event{Kind: fastmcp.Answer, Topic: "big", Data: make([]byte, fastmcp.MaxEventData+1)})
	assert.Equal(t, fastmcp.EventsLost, own.next(t).Kind)
	require.Eventually(t, func() bool { return cb.Stats().Dropped == before+1 }, waitFor, time.Millisecond)
	a.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	assert.Equal(t, fastmcp.ToolsListChanged, c.nextSkippingLost(t).Kind)
	assert.Equal(t, fastmcp.ToolsListChanged, own.nextSkippingLost(t).Kind)
}

// outage: the backend goes away and comes back. Every subscriber hears EventsLost at each
// end, what is published meanwhile is dropped and counted, and events flow again after.
func outage(t *testing.T, b Backend) {
	if b.Outage == nil {
		t.Skip("the backend has no outages")
	}
	a, other := replicas(t, b)
	ca, co := subscribe(t, a), subscribe(t, other)
	restore := b.Outage(t)
	ca.waitLost(t)
	co.waitLost(t)
	cb, counts := a.(counting)
	var before uint64
	if counts {
		before = cb.Stats().Dropped
		assert.GreaterOrEqual(t, cb.Stats().Outages, uint64(1))
	}
	for i := range 10 {
		a.Publish(fastmcp.Event{Kind: fastmcp.TaskChanged, Topic: "during", Data: []byte(fmt.Sprint(i))})
	}
	if counts {
		require.Eventually(t, func() bool { return cb.Stats().Dropped == before+10 }, waitFor, time.Millisecond,
			"what is published during the outage is counted as dropped")
	}
	restore()
	ca.waitLost(t)
	co.waitLost(t)
	other.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	a.Publish(fastmcp.Event{Kind: fastmcp.PromptsListChanged})
	for _, c := range []*collector{ca, co} {
		got := []fastmcp.EventKind{c.nextSkippingLost(t).Kind, c.nextSkippingLost(t).Kind}
		assert.ElementsMatch(t, []fastmcp.EventKind{fastmcp.ToolsListChanged, fastmcp.PromptsListChanged}, got)
	}
	if counts {
		assert.GreaterOrEqual(t, cb.Stats().Reconnects, uint64(1))
	}
}
