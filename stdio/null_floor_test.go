package stdio

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNullLineID(t *testing.T) {
	assert.Equal(t, "7", string(nullLineID([]byte(`{"jsonrpc":"2.0","id":7,"method":"x"}`))))
	assert.Equal(t, `"a"`, string(nullLineID([]byte(`{"id":"a"}`))))
	assert.Equal(t, "null", string(nullLineID([]byte(`{"method":"x"}`))))
}

func TestFloorVerdict(t *testing.T) {
	assert.Equal(t, "inflight=64: fastmcp 600 req/s, null 1000 req/s: 0.600x the null server, goal >= 0.6x: MET",
		floorVerdict(64, 600, 1000))
	assert.Contains(t, floorVerdict(1, 599, 1000), "MISSED")
}

// TestNullServerAnswersEveryLine drives the null server as the floor benchmark does.
func TestNullServerAnswersEveryLine(t *testing.T) {
	require.Equal(t, 500, driveServer(t, serveNull, osPipe, "tools-call", 64, 500))
}
