package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

func latencyComparison(fraction float64, fast, bare time.Duration) *comparison {
	c := &comparison{Metric: "p99", Rounds: 1, Targets: []string{nameFastmcp, nameCeiling}, Generators: []string{"ours"},
		Rate: 25000, RateFraction: fraction, Samples: map[string]map[string][]float64{}, Medians: map[string]map[string]float64{}}
	c.record("ours", nameFastmcp, float64(fast), nil, nil)
	c.record("ours", nameCeiling, float64(bare), nil, nil)
	c.summarize()
	return c
}

func TestLatencyFloor(t *testing.T) {
	assert.Equal(t, "fastmcp 2026-07-28 p99 120µs against bare fasthttp's 100µs at 25000 req/s (medians): 1.200× (goal ≤ 1.3×): MET",
		latencyComparison(0.25, 120*time.Microsecond, 100*time.Microsecond).latencyFloor())
	assert.Contains(t, latencyComparison(0.25, 140*time.Microsecond, 100*time.Microsecond).latencyFloor(), "1.400× (goal ≤ 1.3×): MISSED")
	assert.Contains(t, latencyComparison(0.5, 140*time.Microsecond, 100*time.Microsecond).latencyFloor(), "not judged")

	late := latencyComparison(0.25, 0, 0)
	late.record("ours", nameFastmcp, float64(120*time.Microsecond), &loadtest.LatencyResult{PacerLag: loadtest.Percentiles{P99: 200 * time.Microsecond}}, nil)
	late.record("ours", nameCeiling, float64(100*time.Microsecond), &loadtest.LatencyResult{}, nil)
	late.Samples = map[string]map[string][]float64{"ours": {nameFastmcp: {float64(120 * time.Microsecond)}, nameCeiling: {float64(100 * time.Microsecond)}}}
	late.summarize()
	assert.Contains(t, late.latencyFloor(), "1.200× (goal ≤ 1.3×): not judged (the generator was late: median generator lag p99 200µs > 100µs)")
	assert.Empty(t, latencyComparison(0.25, 140*time.Microsecond, 0).latencyFloor(), "no ceiling measured")
}

func TestCompareRateFraction(t *testing.T) {
	assert.Equal(t, 2, compareCmd(context.Background(), []string{"latency", "--rate-fraction", "0"}))
	assert.Equal(t, 2, compareCmd(context.Background(), []string{"latency", "--rate-fraction", "1.5"}))
}
