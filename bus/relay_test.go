package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestRelayOverflowDropsCountsAndAnnounces fills the outbound buffer while the backend is
// stuck in Send: Publish keeps returning, the excess is counted as dropped, the local
// subscribers hear EventsLost once for the run of drops, and once the backend takes events
// again the marker goes out to the other replicas, then the queued events.
func TestRelayOverflowDropsCountsAndAnnounces(t *testing.T) {
	const buffer = 4
	r := bus.NewRelay(buffer)
	var local []fastmcp.EventKind
	defer r.Subscribe(func(e fastmcp.Event) { local = append(local, e.Kind) })()

	entered, release := make(chan struct{}), make(chan struct{})
	sent := make(chan fastmcp.Event, 100)
	ctx, cancel := context.WithCancel(context.Background())
	go r.Run(ctx, func(_ context.Context, p []byte) error {
		e, err := bus.DecodeEvent(p)
		require.NoError(t, err)
		if e.Kind == fastmcp.ToolsListChanged && len(sent) == 0 {
			close(entered)
			<-release // the backend is stuck on the first event
		}
		sent <- e
		return nil
	})
	defer func() { cancel(); r.Wait() }()

	r.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	<-entered
	for range buffer + 3 { // the buffer fills, then three are dropped
		r.Publish(fastmcp.Event{Kind: fastmcp.ResourceUpdated, URI: "u"})
	}
	assert.Equal(t, uint64(3), r.Stats().Dropped)
	assert.Equal(t, []fastmcp.EventKind{fastmcp.EventsLost}, local, "one EventsLost for the run of drops")
	close(release)

	// The marker for the other replicas goes out as soon as the backend takes events again.
	want := []fastmcp.EventKind{fastmcp.ToolsListChanged, fastmcp.EventsLost}
	for range buffer {
		want = append(want, fastmcp.ResourceUpdated)
	}
	for i, k := range want {
		assert.Equal(t, k, (<-sent).Kind, "sent %d", i)
	}
	r.Publish(fastmcp.Event{Kind: fastmcp.PromptsListChanged})
	assert.Equal(t, fastmcp.PromptsListChanged, (<-sent).Kind, "no second marker")
	assert.Equal(t, uint64(2+buffer), r.Stats().Published)
}

// TestRelayOutage checks the connection's two ends: EventsLost once at each, events dropped
// without a Send while down, and the marker sent once it is back.
func TestRelayOutage(t *testing.T) {
	r := bus.NewRelay(0)
	lost := make(chan struct{}, 10)
	defer r.Subscribe(func(e fastmcp.Event) {
		if e.Kind == fastmcp.EventsLost {
			lost <- struct{}{}
		}
	})()
	sent := make(chan fastmcp.EventKind, 10)
	ctx, cancel := context.WithCancel(context.Background())
	go r.Run(ctx, func(_ context.Context, p []byte) error {
		e, _ := bus.DecodeEvent(p)
		sent <- e.Kind
		return nil
	})
	defer func() { cancel(); r.Wait() }()

	r.Disconnected()
	r.Disconnected()
	<-lost
	r.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	require.Eventually(t, func() bool { return r.Stats().Dropped == 1 }, time.Minute, time.Millisecond)
	assert.Empty(t, sent)
	r.Reconnected()
	<-lost
	assert.Equal(t, fastmcp.EventsLost, <-sent, "the marker for the event dropped")
	assert.Empty(t, lost, "one EventsLost at each end of the outage")
	s := r.Stats()
	assert.Equal(t, [2]uint64{1, 1}, [2]uint64{s.Outages, s.Reconnects})
}

// TestDecodeEventRefuses checks the decoder's refusals.
func TestDecodeEventRefuses(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":      nil,
		"version":    {2, 1, 0, 0},
		"kind zero":  {1, 0, 0, 0},
		"short uri":  {1, 1, 5, 'a'},
		"no topic":   {1, 1, 0},
		"huge name":  append([]byte{1, 1}, 0xff, 0xff, 0xff, 0xff, 0x0f),
		"over bound": append([]byte{1, 1, 0, 0}, make([]byte, fastmcp.MaxEventData+1)...),
	} {
		_, err := bus.DecodeEvent(b)
		assert.ErrorIs(t, err, bus.ErrMalformed, name)
	}
}

// FuzzDecodeEvent: whatever the bytes, DecodeEvent refuses them or returns an event within
// the bounds that encodes back to them.
func FuzzDecodeEvent(f *testing.F) {
	f.Add(bus.AppendEvent(nil, fastmcp.Event{Kind: fastmcp.Answer, URI: "u", Topic: "t", Data: []byte{0, 1}}))
	f.Add([]byte{1, 4, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := bus.DecodeEvent(b)
		if err != nil {
			return
		}
		require.True(t, bus.Fits(e))
		require.Equal(t, b, bus.AppendEvent(nil, e))
	})
}
