package clientbench

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

// TestResultJSON pins the JSON line compare-clients reads.
func TestResultJSON(t *testing.T) {
	r := Result{Client: "go-sdk", Module: "github.com/modelcontextprotocol/go-sdk v1.8.0", Protocol: "2026-07-28",
		Sequential: Phase{Callers: 1, Calls: 1013, Seconds: 0.3, CallsPerSecond: 3376.5, NsPerCall: 296200, CPUNsPerCall: 266107, AllocsPerCall: 182.5, BytesPerCall: 191111},
		Concurrent: Phase{Callers: 32, Calls: 555, Seconds: 0.3, CallsPerSecond: 1850, NsPerCall: 17297000, CPUNsPerCall: 402553, AllocsPerCall: 209.5, BytesPerCall: 197695}}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, `{"client":"go-sdk","module":"github.com/modelcontextprotocol/go-sdk v1.8.0","protocol":"2026-07-28",`+
		`"sequential":{"callers":1,"calls":1013,"seconds":0.3,"calls_per_second":3376.5,"ns_per_call":296200,"cpu_ns_per_call":266107,"allocs_per_call":182.5,"bytes_per_call":191111},`+
		`"concurrent":{"callers":32,"calls":555,"seconds":0.3,"calls_per_second":1850,"ns_per_call":17297000,"cpu_ns_per_call":402553,"allocs_per_call":209.5,"bytes_per_call":197695}}`, string(b))
}

// TestMeasure checks that both phases count the calls they timed, with their callers.
func TestMeasure(t *testing.T) {
	r, err := Measure(func(context.Context) error { return nil }, 4, time.Millisecond, 10*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 1, r.Sequential.Callers)
	assert.Equal(t, 4, r.Concurrent.Callers)
	for _, p := range []Phase{r.Sequential, r.Concurrent} {
		assert.Positive(t, p.Calls)
		assert.Positive(t, p.Seconds)
		assert.InDelta(t, float64(p.Calls)/p.Seconds, p.CallsPerSecond, 1e-6*p.CallsPerSecond)
	}
}

// TestPhaseFailedCall: the first failed call ends the phase with its error.
func TestPhaseFailedCall(t *testing.T) {
	boom := errors.New("boom")
	_, err := Measure(func(context.Context) error { return boom }, 4, 0, time.Millisecond)
	assert.ErrorIs(t, err, boom)
}
