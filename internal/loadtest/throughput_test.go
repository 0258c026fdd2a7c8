package loadtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/streamable"
)

func TestThroughput(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	var readings int
	res, err := Throughput(context.Background(), ThroughputConfig{
		Target: e.target(), Connections: 4, Duration: 300 * time.Millisecond, Warmup: -1,
		Progress: func(Progress) { readings++ },
	})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	assert.Positive(t, res.Requests)
	assert.Positive(t, res.RPS)
	assert.Equal(t, res.Requests, res.Latency.Count)
	assert.Positive(t, readings)
	assert.GreaterOrEqual(t, e.admitted.Load(), res.Requests)
	rep := res.Report()
	rps, ok := rep.Metric("rps")
	assert.True(t, ok)
	assert.Equal(t, res.RPS, rps)
	assert.Empty(t, rep.Notes)
}

// A dead target is reported as errors by kind, never silently.
func TestThroughputRefused(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	url := e.srv.URL()
	e.shutdown(t)
	res, err := Throughput(context.Background(), ThroughputConfig{
		Target: Target{URL: url}, Connections: 2, Duration: 100 * time.Millisecond, Warmup: -1,
	})
	require.NoError(t, err)
	assert.Zero(t, res.Requests)
	assert.Positive(t, res.Errors[KindRefused])
	assert.Contains(t, res.Report().Notes[0], "ERRORS")
}

func TestTargetMustBeLoopback(t *testing.T) {
	for _, u := range []string{"http://10.0.0.1:80/mcp", "http://example.com/mcp", "https://10.0.0.1/mcp", "ftp://127.0.0.1/mcp"} {
		_, err := Throughput(context.Background(), ThroughputConfig{Target: Target{URL: u}})
		assert.Error(t, err, u)
	}
}

func TestLatencyOpenLoop(t *testing.T) {
	e := startEndpoint(t, streamable.ListenerConfig{})
	res, err := Latency(context.Background(), LatencyConfig{
		Target: e.target(), Rate: 2000, Connections: 4, Duration: 300 * time.Millisecond, Warmup: -1,
	})
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	// The pacer hands out exactly rate × duration requests; each is answered or in backlog.
	assert.InDelta(t, 600, res.Requests+res.Backlog, 2)
	assert.LessOrEqual(t, res.Service.P50, res.Latency.P50)
	// The pacer's own lateness is measured for each measured request it handed out.
	assert.Positive(t, res.PacerLag.Count)
	assert.LessOrEqual(t, res.PacerLag.Count, int64(602))
	rep := res.Report()
	lag, ok := rep.Metric(MetricGeneratorLag)
	assert.True(t, ok)
	assert.Equal(t, float64(res.PacerLag.P99), lag)
}

// With no rate, Latency probes the maximum and runs at half of it.
func TestLatencyProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("probe runs for seconds")
	}
	e := startEndpoint(t, streamable.ListenerConfig{})
	res, err := Latency(context.Background(), LatencyConfig{
		Target: e.target(), Connections: 4, Duration: 200 * time.Millisecond, Warmup: -1,
	})
	require.NoError(t, err)
	assert.Positive(t, res.ProbedMax)
	assert.InDelta(t, res.ProbedMax/2, res.Rate, 1)
}
