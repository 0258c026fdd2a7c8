package fastmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/wireschema"
)

// eventSink hands each notification to the test on got; while gate is non-nil, each Notify
// then waits for the test to receive from gate.
type eventSink struct {
	got  chan string
	gate chan struct{}
	err  error
}

func (k *eventSink) Notify(ctx context.Context, msg []byte) error {
	if k.err != nil {
		return k.err
	}
	select {
	case k.got <- string(msg):
	case <-ctx.Done():
		return ctx.Err()
	}
	if k.gate != nil {
		select {
		case <-k.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// serveEvents runs ServeLegacyEvents until the test ends it with the returned stop, which
// reports what it returned.
func serveEvents(t *testing.T, s *Server, ev *LegacyEvents, sink Sink) (stop func() error) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.serveLegacyEvents(ctx, ev, sink) }()
	synctest.Wait() // subscribed to the hub and waiting
	return func() error {
		cancel()
		return <-done
	}
}

const (
	noteTools     = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	notePrompts   = `{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`
	noteResources = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`
	noteWatched   = `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://watched-resource"}}`
)

func TestLegacyEventsDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		ev := NewLegacyEvents()
		require.True(t, ev.Subscribe("test://watched-resource"))
		sink := &eventSink{got: make(chan string)}
		stop := serveEvents(t, s, ev, sink)

		for _, tc := range []struct {
			publish func()
			want    string
			def     string
		}{
			{func() { s.Publish(Event{Kind: ToolsListChanged}) }, noteTools, "ToolListChangedNotification"},
			{func() { s.Publish(Event{Kind: PromptsListChanged}) }, notePrompts, "PromptListChangedNotification"},
			{func() { s.Publish(Event{Kind: ResourcesListChanged}) }, noteResources, "ResourceListChangedNotification"},
			{func() { s.NotifyResourceUpdated("test://watched-resource") }, noteWatched, "ResourceUpdatedNotification"},
			{func() { // a catalog change publishes its own list_changed
				AddTool(s, Tool{Name: "late", Description: "Late"}, func(context.Context, *Request, struct{}) (ToolResult, error) {
					return ToolResult{}, nil
				})
			}, noteTools, "ToolListChangedNotification"},
		} {
			tc.publish()
			got := <-sink.got
			assert.Equal(t, tc.want, got)
			for _, rev := range []string{"2025-11-25", "2025-06-18"} {
				require.NoError(t, wireschema.Validate(rev, tc.def, []byte(got)))
			}
		}

		s.NotifyResourceUpdated("test://other") // not subscribed
		ev.Unsubscribe("test://watched-resource")
		s.NotifyResourceUpdated("test://watched-resource") // no longer subscribed
		synctest.Wait()
		select {
		case got := <-sink.got:
			t.Fatalf("unexpected %s", got)
		default:
		}
		require.ErrorIs(t, stop(), context.Canceled)
		assert.Empty(t, s.hub.taps, "the hub subscription ends with ctx")
	})
}

func TestLegacyEventsCoalesce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		ev := NewLegacyEvents()
		ev.Subscribe("test://a")
		sink := &eventSink{got: make(chan string), gate: make(chan struct{})}
		stop := serveEvents(t, s, ev, sink)

		s.Publish(Event{Kind: ToolsListChanged})
		assert.Equal(t, noteTools, <-sink.got) // and the writer waits on the gate
		for range 5 {
			s.Publish(Event{Kind: ToolsListChanged})
			s.NotifyResourceUpdated("test://a")
			s.Publish(Event{Kind: ResourcesListChanged})
		}
		sink.gate <- struct{}{}
		var got []string
		for range 3 {
			got = append(got, <-sink.got)
			sink.gate <- struct{}{}
		}
		assert.Equal(t, []string{noteTools, noteResources, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}}`}, got,
			"a burst is one notification of each kind, list changes first")
		synctest.Wait()
		assert.Empty(t, sink.got)
		require.ErrorIs(t, stop(), context.Canceled)
	})
}

func TestLegacyEventsOverflowDropsAndWarns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log syncBuffer
		s := newTestServer(t, &Config{SubscriptionBuffer: 2, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		ev := NewLegacyEvents()
		for i := range 6 {
			ev.Subscribe(fmt.Sprintf("test://r%d", i))
		}
		sink := &eventSink{got: make(chan string), gate: make(chan struct{})}
		stop := serveEvents(t, s, ev, sink)

		s.NotifyResourceUpdated("test://r0")
		<-sink.got       // the writer is busy with r0
		for range 1000 { // the publisher never blocks
			for i := 1; i < 6; i++ {
				s.NotifyResourceUpdated(fmt.Sprintf("test://r%d", i))
			}
		}
		sink.gate <- struct{}{}
		for _, want := range []string{"test://r1", "test://r2"} {
			assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"`+want+`"}}`, <-sink.got)
			sink.gate <- struct{}{}
		}
		synctest.Wait()
		assert.Empty(t, sink.got)
		assert.Contains(t, log.String(), `msg="fastmcp: notifications/resources/updated dropped: the connection's queue is full" dropped=3000 limit=2`)
		require.ErrorIs(t, stop(), context.Canceled)
	})
}

func TestLegacyEventsSinkFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, nil)
		broken := errors.New("broken pipe")
		done := make(chan error, 1)
		go func() { done <- s.serveLegacyEvents(t.Context(), nil, &eventSink{err: broken}) }()
		synctest.Wait()
		s.NotifyResourceUpdated("test://a") // no set: nothing to write
		synctest.Wait()
		s.Publish(Event{Kind: PromptsListChanged})
		require.ErrorIs(t, <-done, broken)
		assert.Empty(t, s.hub.taps)
	})
}

func TestLegacyEventsSubscribeBound(t *testing.T) {
	ev := NewLegacyEvents()
	for i := range MaxResourceSubscriptions {
		require.True(t, ev.Subscribe(fmt.Sprintf("test://r%d", i)))
	}
	assert.False(t, ev.Subscribe("test://one-too-many"))
	assert.False(t, ev.subscribed("test://one-too-many"))
	assert.True(t, ev.Subscribe("test://r0"), "subscribing again is one subscription")
	ev.Unsubscribe("test://r0")
	ev.Unsubscribe("test://never") // a no-op
	assert.True(t, ev.Subscribe("test://one-too-many"))
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
