package client

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closeLoopEnv names the servers of TestInteropCloseLoop: name=url pairs, space separated.
const closeLoopEnv = "FASTMCP_CLOSE_LOOP_URLS"

// Issue 21, 1, against the servers Close hung on: go-sdk's conformance server in its
// sessionful mode and mcp-go's conformance example, both of which hold the session's GET
// stream open. Connect in the initialize era, call a tool now and then, and Close, 1,000
// times each; interop/client-lane.sh builds them from the bench/peers module and sets
// FASTMCP_CLOSE_LOOP_URLS.
func TestInteropCloseLoop(t *testing.T) {
	spec := os.Getenv(closeLoopEnv)
	if spec == "" {
		t.Skip("needs the peers' conformance servers: interop/client-lane.sh starts them and sets " + closeLoopEnv)
	}
	n := 1000
	if v, err := strconv.Atoi(os.Getenv("FASTMCP_CLOSE_LOOP_N")); err == nil && v > 0 {
		n = v // a shorter loop, to look into one
	}
	for _, pair := range strings.Fields(spec) {
		name, url, ok := strings.Cut(pair, "=")
		require.True(t, ok, "%s: want name=url, got %q", closeLoopEnv, pair)
		t.Run(name, func(t *testing.T) {
			for i := range n {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				c, err := Connect(ctx, url, Config{Era: EraLegacy})
				cancel()
				require.NoError(t, err, "connect %d", i)
				if i%100 == 0 {
					assert.True(t, c.Stats().Dials > 0)
					tools, err := c.ListTools(context.Background())
					require.NoError(t, err, "tools/list %d", i)
					assert.NotEmpty(t, tools)
				}
				closeWithin(t, c, 10*time.Second)
			}
		})
	}
}
