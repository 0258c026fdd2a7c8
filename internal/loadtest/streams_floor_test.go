package loadtest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestStreamsFloor(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{Config: streamable.Config{KeepAliveInterval: 50 * time.Millisecond}})
	res, err := Streams(context.Background(), StreamsConfig{
		Target: e.target(), Streams: 50, Duration: 100 * time.Millisecond, Fanouts: 3, Floor: InProcessFloor,
	})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	require.NotNil(t, res.Floor)
	f := res.Floor
	assert.Empty(t, f.Note)
	assert.Equal(t, "in process", f.Where)
	assert.Positive(t, f.Writers)
	assert.Equal(t, int64(50), f.Opened)
	// Every round reached every stream of both: arrivals == N per round.
	assert.Zero(t, res.Missed)
	assert.Zero(t, f.Missed)
	assert.Zero(t, res.Ended)
	require.Len(t, res.FanoutMedians, 3)
	require.Len(t, f.Medians, 3)
	require.Len(t, f.Fanout, 3)
	for i := range f.Medians {
		assert.Positive(t, f.Medians[i])
		assert.GreaterOrEqual(t, f.Fanout[i], f.Medians[i])
	}
	assert.InDelta(t, float64(medianDuration(res.FanoutMedians))/float64(medianDuration(f.Medians)), f.Ratio, 1e-9)
	assert.Equal(t, f.Ratio <= FloorGoal, f.Met)
	rep := res.Report()
	assert.Contains(t, strings.Join(rep.Notes, "\n"), "floor: 50 streams, in process")
	_, ok := rep.Metric(MetricFloorRatio)
	assert.True(t, ok)
	// The event the floor wrote is the server's, recorded from the stream whose id is "s49".
	assert.Positive(t, f.EventBytes)
	require.Eventually(t, func() bool { return e.srv.Stats().OpenStreams == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestStreamsFloorInSequence(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	checkStreamFDs = func(n int, _ string) error {
		if n > 10 {
			return errors.New("not enough file descriptors")
		}
		return nil
	}
	t.Cleanup(func() { checkStreamFDs = checkFDs })
	res, err := Streams(context.Background(), StreamsConfig{
		Target: e.target(), Streams: 10, Duration: 50 * time.Millisecond, Fanouts: 2, Floor: InProcessFloor,
	})
	require.NoError(t, err)
	require.NotNil(t, res.Floor)
	assert.Contains(t, res.Floor.Sequence, "not enough file descriptors")
	assert.Equal(t, int64(10), res.Floor.Opened)
	assert.Zero(t, res.Floor.Missed)
	assert.Len(t, res.Floor.Medians, 2, "as many floor rounds as the server's")
	assert.Positive(t, res.Floor.Ratio)
	assert.Contains(t, strings.Join(res.Report().Notes, "\n"), "ROUNDS IN SEQUENCE")
}

func TestStreamsFloorNotOverTLS(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{TLS: selfSigned(t)})
	res, err := Streams(context.Background(), StreamsConfig{
		Target: e.target(), Streams: 5, Duration: 50 * time.Millisecond, Fanouts: 1, Floor: InProcessFloor,
	})
	require.NoError(t, err)
	require.NotNil(t, res.Floor)
	assert.Contains(t, res.Floor.Note, "not measured over TLS")
	assert.Empty(t, res.Floor.Medians)
}

func TestFloorServerRounds(t *testing.T) {
	wire := FloorWire{
		Head:  []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"),
		Ack:   []byte(`data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}` + "\n\n"),
		Event: []byte(`data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n\n"),
	}
	rf, err := InProcessFloor(context.Background(), wire, 20)
	require.NoError(t, err)
	defer rf.Stop()
	ep, err := Target{URL: rf.URL}.parse()
	require.NoError(t, err)
	run := &floorRun{res: &FloorResult{}, ep: ep, set: &streamSet{intervals: newHist()}, stop: func() {}}
	run.streams = openStreams(context.Background(), ep, 20, 4, time.Now().Add(time.Minute), run.set, func(int64) {})
	run.res.Opened = int64(len(run.streams))
	require.Equal(t, int64(20), run.res.Opened, run.set.errors.String())
	for _, s := range run.streams {
		run.readers.Go(func() { run.set.read(s) })
	}
	defer run.close()
	for r := range 2 {
		require.NoError(t, run.round(context.Background(), int64(r+1), 5*time.Second))
	}
	assert.Zero(t, run.res.Missed, "20 arrivals a round")
	assert.Len(t, run.res.Medians, 2)

	// Past its bound, a listen is refused: the stream does not open.
	_, _, err = openListen(context.Background(), ep, `"over"`, time.Now().Add(5*time.Second), nil)
	assert.Error(t, err)
}

func TestCaptureWire(t *testing.T) {
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
	ack := `data: {"method":"notifications/subscriptions/acknowledged"}` + "\n\n"
	ev := `data: {"method":"notifications/tools/list_changed"}` + "\n\n"
	w, err := captureWire([]byte(head + ack + ": keepalive\n\n" + ev + ": keep"))
	require.NoError(t, err)
	assert.Equal(t, head, string(w.Head))
	assert.Equal(t, ack, string(w.Ack))
	assert.Equal(t, ev, string(w.Event))

	chunk := func(s string) string { return strconv.FormatInt(int64(len(s)), 16) + "\r\n" + s + "\r\n" }
	chead := "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
	w, err = captureWire([]byte(chead + chunk(ack) + chunk(": keepalive\n\n") + chunk(ev)))
	require.NoError(t, err)
	assert.Equal(t, chunk(ack), string(w.Ack))
	assert.Equal(t, chunk(ev), string(w.Event))

	_, err = captureWire([]byte(head + ack))
	assert.ErrorContains(t, err, "no list_changed")
	_, err = captureWire([]byte(head + ev))
	assert.ErrorContains(t, err, "no acknowledgement")
	_, err = captureWire([]byte("HTTP/1.1 200 OK\r\n"))
	assert.ErrorContains(t, err, "no response head")
}
