package main

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// resultLine is the JSON this program prints; cmd/fastmcp-bench's TestParseClientResult
// parses the same literal, so the two sides of compare-clients keep one shape.
const resultLine = `{"client":"go-sdk","module":"github.com/modelcontextprotocol/go-sdk v1.8.0","protocol":"2026-07-28",` +
	`"sequential":{"callers":1,"calls":1013,"seconds":0.3,"calls_per_second":3376.5,"ns_per_call":296200,"cpu_ns_per_call":266107,"allocs_per_call":182.5,"bytes_per_call":191111},` +
	`"concurrent":{"callers":32,"calls":555,"seconds":0.3,"calls_per_second":1850,"ns_per_call":17297000,"cpu_ns_per_call":402553,"allocs_per_call":209.5,"bytes_per_call":197695}}`

func TestResultShape(t *testing.T) {
	r := result{Client: "go-sdk", Module: "github.com/modelcontextprotocol/go-sdk v1.8.0", Protocol: "2026-07-28",
		Sequential: phase{Callers: 1, Calls: 1013, Seconds: 0.3, CallsPerSecond: 3376.5, NsPerCall: 296200, CPUNsPerCall: 266107, AllocsPerCall: 182.5, BytesPerCall: 191111},
		Concurrent: phase{Callers: 32, Calls: 555, Seconds: 0.3, CallsPerSecond: 1850, NsPerCall: 17297000, CPUNsPerCall: 402553, AllocsPerCall: 209.5, BytesPerCall: 197695}}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, resultLine, string(b))
}

func TestPhaseFailedCall(t *testing.T) {
	boom := errors.New("boom")
	_, err := runPhase(func(context.Context) error { return boom }, 4, 0, time.Millisecond)
	assert.ErrorIs(t, err, boom, "the first failed call ends the phase with its error")
}

func TestRunUsage(t *testing.T) {
	assert.EqualError(t, run("go-sdk", "bogus", "", measureOptions{}, ""), `-era modern or legacy, not "bogus"`)
	assert.EqualError(t, run("nope", "modern", "", measureOptions{}, ""), `-client go-sdk or mcp-go, not "nope"`)
}
