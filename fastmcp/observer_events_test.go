package fastmcp

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventStatsCountOverflow replays TestListenOverflowEndsGracefully and checks the
// counts: every event published, and one overflow, the event that found the queue full.
func TestEventStatsCountOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newTestServer(t, &Config{SubscriptionBuffer: 2})
		addKinds(s, kindResource) // publishes resources list_changed
		base := s.EventStats().Published
		require.Equal(t, uint64(1), base)
		c := startListen(t, s, listenRequest(`"o"`, `{"resourceSubscriptions":["file:///a","file:///b","file:///c"]}`), 0)
		c.next(t)
		assert.Equal(t, EventStats{Published: base}, s.EventStats())

		s.NotifyResourceUpdated("file:///a") // being written
		synctest.Wait()
		s.NotifyResourceUpdated("file:///b") // queued
		s.NotifyResourceUpdated("file:///c") // queued: the queue is full
		s.NotifyResourceUpdated("file:///b") // already queued: no room needed, not dropped
		synctest.Wait()
		assert.Equal(t, EventStats{Published: base + 4}, s.EventStats())
		s.NotifyResourceUpdated("file:///a") // overflow
		require.Equal(t, updatedOf("file:///a", `"o"`), c.next(t))
		require.Equal(t, listenResult(`"o"`), c.end(t))
		assert.Equal(t, EventStats{Published: base + 5, Overflows: 1}, s.EventStats())
	})
}
