package loadtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestConnCap(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{MaxConnections: 8})
	res, err := ConnCap(context.Background(), ConnCapConfig{
		Target: e.target(), Cap: 8, Excess: 4, Connections: 2, Rate: 500, Phase: 300 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.Empty(t, res.Errors, "the legitimate load keeps its connections")
	assert.Equal(t, int64(6), res.Admitted, "cap minus the legitimate connections: %+v %+v", res, e.srv.Stats())
	assert.Positive(t, res.ClosedUnread)
	assert.Equal(t, res.Expected, res.ClosedUnread, "every excess connection is closed unread: %s", res.FloodErrors)
	// The server may also have closed attempts cut by the end of the phase, uncounted here.
	assert.GreaterOrEqual(t, e.srv.Stats().ClosedAtCap, res.ClosedUnread)
	assert.Positive(t, res.Baseline.Count)
	assert.Positive(t, res.UnderFlood.Count)
	assert.Empty(t, res.Report().Notes)
}

func TestStreams(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{Config: streamable.Config{KeepAliveInterval: 50 * time.Millisecond}})
	var memReads int
	res, err := Streams(context.Background(), StreamsConfig{
		Target: e.target(), Streams: 20, Duration: 300 * time.Millisecond, Fanouts: 2,
		Memory: func() (uint64, error) { memReads++; return uint64(memReads) << 20, nil },
	})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Equal(t, int64(20), res.Opened)
	assert.Positive(t, res.KeepAlives)
	assert.InDelta(t, float64(50*time.Millisecond), float64(res.Interval.P50), float64(25*time.Millisecond))
	require.Len(t, res.Fanout, 2)
	assert.Zero(t, res.Missed)
	assert.Positive(t, res.Fanout[0])
	assert.InDelta(t, float64(1<<20)/20, res.PerStream, 1)
	assert.Zero(t, res.Ended)
	// The streams are closed by the client: the server frees them.
	require.Eventually(t, func() bool { return e.srv.Stats().OpenStreams == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestProcessRSS(t *testing.T) {
	rss, err := ProcessRSS(1)
	require.NoError(t, err)
	assert.Positive(t, rss)
	_, err = ProcessRSS(-5)
	assert.Error(t, err)
}

func TestDrain(t *testing.T) {
	var eps []*testEndpoint
	res, err := Drain(context.Background(), DrainConfig{
		Runs: 2, Connections: 4, Streams: 3, Before: 200 * time.Millisecond, DrainTimeout: 2 * time.Second,
		Start: func(context.Context, int) (*DrainTarget, error) {
			e := startEndpoint(t, streamable.ListenerConfig{Config: streamable.Config{DrainTimeout: 2 * time.Second}})
			eps = append(eps, e)
			return &DrainTarget{
				Target: e.target(),
				Shutdown: func(ctx context.Context) error {
					e.stopped = true
					err := e.srv.Shutdown(ctx)
					<-e.served
					return err
				},
				Admitted: e.admitted.Load,
			}, nil
		},
	})
	require.NoError(t, err)
	require.Len(t, res.Runs, 2)
	for _, run := range res.Runs {
		assert.Zero(t, run.Lost, "%+v", run)
		assert.Positive(t, run.Completed)
		assert.Equal(t, run.Admitted, run.Completed)
		assert.Equal(t, int64(3), run.Streams)
		assert.Equal(t, int64(3), run.StreamsCompleted)
		assert.Positive(t, run.NewConnRefused)
		assert.Empty(t, run.ShutdownErr)
	}
	rep := res.Report()
	lost, _ := rep.Metric("admitted lost")
	assert.Zero(t, lost)
}

func TestSlowloris(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{HeadTimeout: 200 * time.Millisecond, Config: streamable.Config{BodyTimeout: 200 * time.Millisecond}})
	res, err := Slowloris(context.Background(), SlowlorisConfig{
		Target: e.target(), Clients: 6, Every: 20 * time.Millisecond, Connections: 2, Rate: 500, Phase: 600 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.Empty(t, res.SlowErrors)
	assert.Empty(t, res.Errors)
	assert.Equal(t, int64(6), res.Cut, "uncut %d", res.Uncut)
	assert.Less(t, res.CutAfter.Max, 600*time.Millisecond)
	assert.Positive(t, res.UnderAttack.Count)
}

func TestProgressScenario(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	res, err := ProgressScenario(context.Background(), ProgressConfig{
		Target: e.target(), Call: 50 * time.Millisecond, Connections: 2, Duration: 250 * time.Millisecond,
	})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Positive(t, res.Calls)
	// The demo sleep reports every 10 ms: about 4 events in a 50 ms call.
	assert.GreaterOrEqual(t, res.PerCall, 2.0)
	assert.Positive(t, res.EventsPerSecond)
}

func TestProcessCPU(t *testing.T) {
	d, err := ProcessCPU(os.Getpid())
	require.NoError(t, err)
	assert.Positive(t, d)
	_, err = ProcessCPU(-3)
	assert.Error(t, err)
}

// With the server's pid, Throughput reports its CPU per request (here the test process,
// which is the server and the generator at once).
func TestThroughputServerCPU(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	tg := e.target()
	tg.PID = os.Getpid()
	res, err := Throughput(context.Background(), ThroughputConfig{Target: tg, Connections: 4, Duration: 500 * time.Millisecond, Warmup: -1})
	require.NoError(t, err)
	assert.Positive(t, res.ServerCPU)
	assert.Positive(t, res.ServerCores)
	rep := res.Report()
	_, ok := rep.Metric("server CPU/request")
	assert.True(t, ok)
}
