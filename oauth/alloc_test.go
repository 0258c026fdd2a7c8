//go:build !race

package oauth

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// dpopAllocBudget bounds the allocations of a DPoP request whose token is cached: go-jose's
// parse of the proof and its embedded key (most of them), the signature check, the claims'
// JSON, the thumbprint, the htu's URL, the replay cache. Measured: 189 with an ES256 proof
// (137 with EdDSA, BenchmarkGateDPoP).
const dpopAllocBudget = 200

// TestAllocsCredential: parsing the Authorization header allocates nothing.
func TestAllocsCredential(t *testing.T) {
	values := [][]byte{[]byte("Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln")}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, _, fault := credential(values, DefaultMaxTokenBytes); fault != credentialOK {
			t.Fatal("refused")
		}
	})
	assert.Zero(t, allocs)
}

// TestGateAllocsBudget: a request refused for want of a token costs no allocation (its
// response is made once), and neither does an admitted request whose token is cached (its
// identity is remembered with it).
func TestGateAllocsBudget(t *testing.T) {
	c := newClock()
	rs, _ := countingServer(t, c, time.Hour, nil)
	ctx := context.Background()
	missing := gateRequest("POST", "/mcp")
	cached := gateRequest("POST", "/mcp", "Authorization", "Bearer cached-token")
	admit(t, rs, "cached-token")
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = rs.Gate(ctx, missing) }))
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = rs.Gate(ctx, cached) }))
}

// TestGateAllocsDPoPBudget: with DPoP allowed, a Bearer request whose token is cached still
// costs no allocation; a DPoP request whose token is cached costs its proof's parse and
// signature check (every proof is new, so nothing of it can be cached), within the budget.
func TestGateAllocsDPoPBudget(t *testing.T) {
	const budget = dpopAllocBudget
	f := newDPoPFixture(t, DPoPConfig{Mode: DPoPAllowed})
	ctx := context.Background()
	unbound := f.token(t, "", "mcp:tools")
	bearer := gateRequest("POST", "/mcp", "Authorization", "Bearer "+unbound)
	if d, _ := f.rs.Gate(ctx, bearer); d.Identity == nil {
		t.Fatal("refused")
	}
	assert.Zero(t, testing.AllocsPerRun(1000, func() { _, _ = f.rs.Gate(ctx, bearer) }))

	tok := f.token(t, f.key.Thumbprint(), "mcp:tools")
	const runs = 500
	proofs := make([][]byte, runs+2)
	for i := range proofs {
		proofs[i] = []byte(f.proof(t, f.key, tok, nil))
	}
	h := &listHeaders{names: []string{"Authorization", HeaderDPoP}, values: [][]byte{[]byte("DPoP " + tok), proofs[0]}}
	r := streamable.GateRequest{Method: []byte("POST"), Path: []byte("/mcp"), Header: h}
	if d, _ := f.rs.Gate(ctx, r); d.Identity == nil { // verifies and caches the token
		t.Fatal("refused")
	}
	next := 1
	allocs := testing.AllocsPerRun(runs, func() {
		h.values[1] = proofs[next]
		next++
		if d, _ := f.rs.Gate(ctx, r); d.Identity == nil {
			t.Fatal("refused")
		}
	})
	t.Logf("a DPoP request with a cached token (ES256 proof): %.0f allocations", allocs)
	assert.LessOrEqual(t, allocs, float64(budget))
}

// TestAllocsGatedCall: a keep-alive tools/call whose token is cached costs, with GateQuick
// in front of Gate, one allocation more than the same call without a gate: the core's
// context carrying the identity; on net/http two more, its lookup of the Authorization
// header (net/http's header holds strings, handed to the gate as bytes). Without GateQuick,
// the RequestGate's goroutine, channel and timeout cost ten more (logged).
func TestAllocsGatedCall(t *testing.T) {
	rs, calls := countingServer(t, newClock(), time.Hour, nil)
	extra := map[string]float64{stackNative: 1, stackNetHTTP: 3, stackFastHTTP: 1}
	for _, stack := range allStacks {
		t.Run(stack, func(t *testing.T) {
			none := callAllocs(t, stack, streamable.Config{})
			quick := callAllocs(t, stack, streamable.Config{RequestGate: rs.Gate, RequestGateQuick: rs.GateQuick})
			slow := callAllocs(t, stack, streamable.Config{RequestGate: rs.Gate})
			t.Logf("%s: no gate %.2f, cached token %.2f (%.2f without GateQuick) allocations per call", stack, none, quick, slow)
			assert.LessOrEqual(t, quick, none+extra[stack])
		})
	}
	assert.Equal(t, int64(1), calls.Load(), "the token was verified once, then cached")
}

// callAllocs measures the allocations of a keep-alive tools/call of a tool that allocates
// nothing for its caller, with a bearer token, to a core served on stack under cfg: the
// process's, client included.
func callAllocs(t *testing.T, stack string, cfg streamable.Config) float64 {
	core, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"}, &fastmcp.Config{Logger: quiet})
	require.NoError(t, err)
	fastmcp.AddTool(core, fastmcp.Tool{Name: "ping", Description: "Ping"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: "pong"}, nil
	})
	addr := startStack(t, stack, core, streamable.ListenerConfig{Config: cfg})
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer c.Close()
	req := []byte(post(addr, "ping", "Authorization: Bearer cached-token"))
	br := bufio.NewReaderSize(c, 4096)
	roundTrip := func() {
		_, err := c.Write(req)
		require.NoError(t, err)
		require.NoError(t, readOK(br))
	}
	for range 100 { // warm the pools and the token cache
		roundTrip()
	}
	return testing.AllocsPerRun(1000, roundTrip)
}

// readOK reads one response with a Content-Length, without allocating, failing unless it
// is a 200.
func readOK(br *bufio.Reader) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return errors.New("not a 200: " + string(line))
	}
	n := -1
	for {
		if line, err = br.ReadSlice('\n'); err != nil {
			return err
		}
		if len(line) <= 2 {
			break
		}
		if name, value, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(name, []byte("Content-Length")) {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(value))); err != nil {
				return err
			}
		}
	}
	if n < 0 {
		return errors.New("no Content-Length")
	}
	_, err = br.Discard(n)
	return err
}
