package client

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzParseTask: parseTask never panics, and what it accepts has an id, a known status and
// the payload that status requires.
func FuzzParseTask(f *testing.F) {
	f.Add([]byte(specCompleted), "complete")
	f.Add([]byte(specCreated), "task")
	f.Add([]byte(`{"taskId":"t","status":"input_required","inputRequests":{"k":{"method":"elicitation/create","params":{}}},"ttlMs":null,`+
		`"createdAt":"x","lastUpdatedAt":"x","_meta":{"io.modelcontextprotocol/subscriptionId":"l"}}`), "")
	f.Add([]byte(`{"resultType":"complete","taskId":"t","status":"failed","error":{"code":-32603,"message":"m"},"ttlMs":-1,"pollIntervalMs":0}`), "complete")
	f.Add([]byte(`{"resultType":"complete","taskId":"t","status":"completed","result":[]}`), "complete")
	f.Add([]byte(`{"resultType":"complete","taskId":"t","status":"working","ttlMs":9007199254740991}`), "complete")
	f.Fuzz(func(t *testing.T, raw []byte, resultType string) {
		d, err := parseTask(raw, resultType, true)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformed)
			return
		}
		assert.NotEmpty(t, d.ID)
		assert.True(t, d.Status.valid(), d.Status)
		assert.GreaterOrEqual(t, d.TTL, 0*d.TTL)
		assert.GreaterOrEqual(t, d.PollInterval, 0*d.PollInterval)
		switch d.Status {
		case TaskCompleted:
			assert.NotNil(t, d.Result)
		case TaskFailed:
			assert.NotNil(t, d.Error)
		case TaskInputRequired:
			assert.NotNil(t, d.InputRequests)
		}
	})
}

// ttlMs and pollIntervalMs may reach 2^53-1 ms, more than a Duration holds.
func TestMillis(t *testing.T) {
	assert.Equal(t, time.Duration(0), millis(-1))
	assert.Equal(t, time.Duration(0), millis(0))
	assert.Equal(t, 1500*time.Millisecond, millis(1500))
	assert.Equal(t, time.Duration(math.MaxInt64), millis(9007199254740991))
}
