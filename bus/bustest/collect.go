package bustest

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// waitFor bounds every wait of the suite: long enough for a loaded machine, and a failure
// rather than a hang when the event never comes.
const waitFor = 30 * time.Second

// collector is a subscriber that keeps what it is given, never blocking.
type collector struct {
	ch       chan fastmcp.Event
	overflow atomic.Bool
}

func newCollector() *collector { return &collector{ch: make(chan fastmcp.Event, 1<<16)} }

// deliver copies e (a subscriber must not keep Data past the call unless it copies).
func (c *collector) deliver(e fastmcp.Event) {
	e.Data = bytes.Clone(e.Data)
	select {
	case c.ch <- e:
	default:
		c.overflow.Store(true)
	}
}

// subscribe subscribes a new collector to b, cancelled when t ends.
func subscribe(t *testing.T, b fastmcp.EventBus) *collector {
	c := newCollector()
	t.Cleanup(b.Subscribe(c.deliver))
	return c
}

// next returns the next event, failing after waitFor.
func (c *collector) next(t *testing.T) fastmcp.Event {
	t.Helper()
	require.False(t, c.overflow.Load(), "the collector overflowed")
	select {
	case e := <-c.ch:
		return e
	case <-time.After(waitFor):
		t.Fatal("no event")
	}
	return fastmcp.Event{}
}

// nextSkippingLost returns the next event that is not EventsLost.
func (c *collector) nextSkippingLost(t *testing.T) fastmcp.Event {
	t.Helper()
	for {
		if e := c.next(t); e.Kind != fastmcp.EventsLost {
			return e
		}
	}
}

// waitLost waits for an EventsLost, skipping other events.
func (c *collector) waitLost(t *testing.T) {
	t.Helper()
	for c.next(t).Kind != fastmcp.EventsLost {
	}
}

// replicas opens the buses of one test: two sharing the backend when it has replicas, one
// (twice) otherwise.
func replicas(t *testing.T, b Backend) (a, other fastmcp.EventBus) {
	a = b.Open(t)
	if !b.Replicas {
		return a, a
	}
	return a, b.Open(t)
}
