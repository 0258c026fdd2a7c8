//go:build !race

package streamable

import (
	"bufio"
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestAllocsQuickGate pins what gating costs a keep-alive tools/call on every stack, against
// the same call without a gate in the same run (whose own budgets TestAllocsListener and
// TestAllocsHostsBudget pin: no gate costs nothing). A request its quick gate admits costs
// no allocation more: no goroutine, channel, timer, context or copy of the head; with an
// identity, one, the core's context carrying it (as with SetIdentity). The RequestGate,
// run for what the quick gate leaves undecided, costs its goroutine and timeout, logged.
func TestAllocsQuickGate(t *testing.T) {
	alice := &fastmcp.Identity{Principal: "alice"}
	full := func(context.Context, GateRequest) (GateDecision, error) { return GateDecision{Identity: alice}, nil }
	admit := func(GateRequest) (GateDecision, bool) { return GateDecision{}, true }
	admitAlice := func(GateRequest) (GateDecision, bool) { return GateDecision{Identity: alice}, true }
	for _, stack := range []string{stackNative, stackNetHTTP, stackFastHTTP} {
		t.Run(stack, func(t *testing.T) {
			measure := func(cfg Config) float64 { return callAllocs(t, stack, cfg) }
			none := measure(Config{})
			quick := measure(Config{RequestGate: full, RequestGateQuick: admit})
			quickIdentity := measure(Config{RequestGate: full, RequestGateQuick: admitAlice})
			slow := measure(Config{RequestGate: full})
			t.Logf("%s: no gate %.2f, quick %.2f, quick with an identity %.2f, RequestGate alone %.2f allocations per call",
				stack, none, quick, quickIdentity, slow)
			assert.LessOrEqual(t, quick, none)
			assert.LessOrEqual(t, quickIdentity, none+1)
		})
	}
}

// callAllocs serves the test core on stack under cfg and measures the allocations of a
// keep-alive tools/call, the process's (the native listener in memory, the others over
// loopback TCP).
func callAllocs(t *testing.T, stack string, cfg Config) float64 {
	var c net.Conn
	var err error
	if stack == stackNative {
		ln := fasthttputil.NewInmemoryListener()
		serveBenchWith(t, ln, ListenerConfig{Config: cfg})
		c, err = ln.Dial()
	} else {
		addr, _ := startStack(t, stack, newCore(t), ListenerConfig{Config: cfg})
		c, err = net.Dial("tcp", addr)
	}
	require.NoError(t, err)
	defer c.Close()
	req := echoRequest()
	br := bufio.NewReaderSize(c, 4096)
	roundTrip := func() {
		_, err := c.Write(req)
		require.NoError(t, err)
		require.NoError(t, readOne(br))
	}
	for range 100 { // warm the pools and caches
		roundTrip()
	}
	return testing.AllocsPerRun(1000, roundTrip)
}
