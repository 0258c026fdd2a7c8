package fastmcp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestObserverNow checks that observerNow tells the time as time.Now does, monotonic
// reading included (so that time.Since of it is exact), and reads the wall clock again
// past observerClockRebase.
func TestObserverNow(t *testing.T) {
	before := time.Now()
	got := observerNow()
	after := time.Now()
	assert.False(t, got.Before(before), "%v before %v", got, before)
	assert.False(t, got.After(after), "%v after %v", got, after)
	assert.True(t, got != got.Round(0), "has a monotonic reading")

	old := time.Now().Add(-2 * observerClockRebase)
	observerBase.Store(&old)
	got = observerNow()
	assert.WithinDuration(t, time.Now(), got, observerClockRebase)
	assert.NotEqual(t, &old, observerBase.Load(), "rebased")
}
