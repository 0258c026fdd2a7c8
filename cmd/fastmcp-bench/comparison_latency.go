package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/loadtest"
)

// latencyFloorGoal is the most fastmcp's p99 may be, as a multiple of bare fasthttp's, at a
// quarter of fastmcp's maximum rate (issue 24).
const latencyFloorGoal = 1.3

// latencyFloor sets fastmcp's median p99 beside the bare ceiling's at the same rate, in the
// same run, one line per protocol revision: the ratio, judged against latencyFloorGoal when
// the rate is a quarter of fastmcp's probed maximum. It is empty when no pair was measured.
func (c *comparison) latencyFloor() string {
	var lines []string
	for _, proto := range c.protocols() {
		gen := c.Generators[0]
		fast, bare := c.Medians[gen][c.find(nameFastmcp, proto)], c.Medians[gen][c.find(nameCeiling, proto)]
		if fast > 0 && bare > 0 {
			lines = append(lines, c.latencyFloorLine(proto, fast, bare))
		}
	}
	return strings.Join(lines, "\n")
}

// latencyFloorLine is latencyFloor's line for one revision.
func (c *comparison) latencyFloorLine(proto string, fast, bare float64) string {
	ratio := fast / bare
	verdict := fmt.Sprintf("not judged (the goal is at a quarter of fastmcp's maximum: --rate-fraction 0.25, got %g)", c.RateFraction)
	lag := max(loadtest.Median(c.PacerLag[c.find(nameFastmcp, proto)]), loadtest.Median(c.PacerLag[c.find(nameCeiling, proto)]))
	switch {
	case lag > float64(loadtest.PacerLagLimit):
		verdict = "not judged (the generator was late: median " + loadtest.MetricGeneratorLag + " " +
			loadtest.FormatDuration(time.Duration(lag)) + " > " + loadtest.FormatDuration(loadtest.PacerLagLimit) + ")"
	case c.RateFraction == 0.25:
		verdict = "MET"
		if ratio > latencyFloorGoal {
			verdict = "MISSED"
		}
	}
	return fmt.Sprintf("fastmcp %s p99 %s against bare fasthttp's %s at %.0f req/s (medians): %.3f× (goal ≤ %.1f×): %s",
		proto, loadtest.FormatDuration(time.Duration(fast)), loadtest.FormatDuration(time.Duration(bare)), c.Rate, ratio, latencyFloorGoal, verdict)
}
