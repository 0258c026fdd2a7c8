package main

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// TestTasksReport: the metrics, the goal mark and the notes of the scenario's report.
func TestTasksReport(t *testing.T) {
	r := &tasksResult{Target: "fastmcp (sqlite)", Store: "sqlite", Created: 400, CreateTime: 2 * time.Second,
		Create:    loadtest.Percentiles{Count: 400, Mean: 5 * time.Millisecond, P50: 4 * time.Millisecond, P99: 9 * time.Millisecond},
		Floor:     loadtest.Percentiles{Count: 400, Mean: 2 * time.Millisecond, P50: 2 * time.Millisecond, P99: 3 * time.Millisecond},
		Cancelled: 40, Completed: 360, CancelledSeen: 40, Settle: 300 * time.Millisecond}
	rep := r.Report()
	assert.Equal(t, "tasks", rep.Scenario)
	want := map[string]float64{
		"created/s": 200, "create p50": 4e6, "create p99": 9e6, "floor p50": 2e6, "floor p99": 3e6,
		"ratio": 2.5, "completed": 360, "cancelled": 40,
	}
	var names []string
	for _, m := range rep.Metrics {
		names = append(names, m.Name)
		assert.InDelta(t, want[m.Name], m.Value, 1e-9, m.Name)
	}
	assert.Equal(t, []string{"created/s", "create p50", "create p99", "floor p50", "floor p99", "ratio", "completed", "cancelled"}, names)
	ratio := rep.Metrics[5]
	assert.Equal(t, "goal ≤ 2× the floor: MISSED", goalMark(&rep, ratio))
	r.Create.Mean = 3 * time.Millisecond
	rep = r.Report()
	assert.Equal(t, "goal ≤ 2× the floor: ok", goalMark(&rep, rep.Metrics[5]))
	require.Len(t, rep.Notes, 1)
	assert.Contains(t, rep.Notes[0], "sqlite store: 400 tasks created by one caller (40 cancelled right away)")

	r.Floor, r.Store, r.Other, r.Unsettled = loadtest.Percentiles{}, "memory", 1, 2
	rep = r.Report()
	for _, m := range rep.Metrics {
		assert.NotContains(t, []string{"ratio", "floor p50", "floor p99"}, m.Name, "no floor, no ratio")
	}
	assert.Contains(t, rep.Notes, "the memory store has no physical floor: no ratio")
	assert.Contains(t, rep.Notes, "1 tasks ended neither completed nor cancelled, 2 were not terminal after 1m0s")

	var out bytes.Buffer
	printReport(&out, &runReport{Version: "test", Target: "x", Reports: []loadtest.Report{r.Report()}})
	assert.Contains(t, out.String(), "created/s   200 /s")

	r.Floor = loadtest.Percentiles{Count: 1, Mean: 1}
	for _, m := range r.Report().Metrics {
		found := false
		for _, term := range glossary {
			found = found || term.matches(m.Name)
		}
		assert.True(t, found, "metric %q has no glossary term", m.Name)
	}
}

// TestTasksScenario runs the scenario briefly against the SQLite store: every task created
// is polled to its end, the cancelled share ends cancelled, and each creation has its floor.
func TestTasksScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a SQLite file for a second")
	}
	t.Setenv("TMPDIR", t.TempDir())
	ep, err := startTasksEndpoint(t.Context(), "sqlite", false)
	require.NoError(t, err)
	defer ep.stop()
	require.NotNil(t, ep.floor)
	res, err := runTasksScenario(context.Background(), ep, 500*time.Millisecond, nil)
	require.NoError(t, err)
	assert.Empty(t, res.Errors)
	require.Positive(t, res.Created)
	assert.Equal(t, res.Created, res.Create.Count)
	assert.Equal(t, res.Created, res.Floor.Count, "one floor insert per creation")
	assert.Equal(t, res.Created, res.Completed+res.CancelledSeen, "every task ended completed or cancelled")
	assert.Equal(t, res.Cancelled, res.CancelledSeen, "a 60 s task cancelled at once ends cancelled")
	assert.Zero(t, res.Other+res.Unsettled)
	assert.Equal(t, res.Created/tasksCancelEvery, res.Cancelled)
	assert.Positive(t, res.Ratio())
}
