package pgbus_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/bus/pgbus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestLargeEventRowsCleanedUp sends events past the NOTIFY payload bound: each arrives whole
// through its row, and the rows past Retention are deleted as the next large event is sent.
func TestLargeEventRowsCleanedUp(t *testing.T) {
	d := newDatabase(t)
	b := openBus(t, d, pgbus.Config{Retention: time.Microsecond})
	got := make(chan fastmcp.Event, 10)
	defer b.Subscribe(func(e fastmcp.Event) { got <- e })()
	rows := func() (n int) {
		require.NoError(t, d.pool(t).QueryRow(context.Background(), `SELECT count(*) FROM `+pgbus.DefaultTable).Scan(&n))
		return n
	}

	for i := range 3 {
		data := bytes.Repeat([]byte{byte(i), 0}, pgbus.MaxInlineBytes)
		b.Publish(fastmcp.Event{Kind: fastmcp.Answer, Topic: "big", Data: data})
		e := <-got
		require.Equal(t, fastmcp.Answer, e.Kind)
		assert.True(t, bytes.Equal(data, e.Data), "event %d", i)
		assert.Equal(t, 1, rows(), "after event %d only its row is kept", i)
	}
	assert.Zero(t, b.Stats().Lost)
}

// TestLargeEventRowGoneIsLost: a notification whose row was deleted (a replica that read it
// past Retention) is counted as lost and announced, not delivered.
func TestLargeEventRowGoneIsLost(t *testing.T) {
	d := newDatabase(t)
	b := openBus(t, d, pgbus.Config{})
	got := make(chan fastmcp.Event, 10)
	defer b.Subscribe(func(e fastmcp.Event) { got <- e })()
	_, err := d.pool(t).Exec(context.Background(), `SELECT pg_notify($1, 'r424242')`, pgbus.DefaultChannel)
	require.NoError(t, err)
	assert.Equal(t, fastmcp.EventsLost, (<-got).Kind)
	assert.Equal(t, uint64(1), b.Stats().Lost)
}

// TestListenerTerminatedListensAgain ends the listener's backend alone (pg_terminate_backend):
// the subscribers hear EventsLost, the bus listens again on a new connection and hears
// EventsLost once more, and events flow.
func TestListenerTerminatedListensAgain(t *testing.T) {
	d := newDatabase(t)
	b := openBus(t, d, pgbus.Config{})
	got := make(chan fastmcp.Event, 10)
	defer b.Subscribe(func(e fastmcp.Event) { got <- e })()
	admin(t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '`+d.name+`' AND query LIKE 'LISTEN%'`)
	assert.Equal(t, fastmcp.EventsLost, (<-got).Kind)
	assert.Equal(t, fastmcp.EventsLost, (<-got).Kind)
	b.Publish(fastmcp.Event{Kind: fastmcp.ToolsListChanged})
	assert.Equal(t, fastmcp.ToolsListChanged, (<-got).Kind)
	s := b.Stats()
	assert.Equal(t, [2]uint64{1, 1}, [2]uint64{s.Outages, s.Reconnects})
}
