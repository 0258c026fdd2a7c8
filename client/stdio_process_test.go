package client

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fixtures"
)

func shServer(t *testing.T, script string) *stdioTransport {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cfg, err := Config{Command: "sh", Args: []string{"-c", script}}.withDefaults()
	require.NoError(t, err)
	tr, err := startStdioProcess(context.Background(), &cfg)
	require.NoError(t, err)
	return tr.(*stdioTransport)
}

func TestStdioProcessExitMidCall(t *testing.T) {
	// The server reads the request, says why on stderr, and exits without answering.
	tr := shServer(t, `read line; echo "out of cheese" >&2; exit 3`)
	defer func() { require.NoError(t, tr.close()) }()
	_, err := tr.roundTrip(context.Background(), echoReq(1), nil, noMessages)
	require.ErrorIs(t, err, ErrServerExited)
	assert.EqualError(t, err, "client: stdio server exited: its output ended (exit status 3; stderr: out of cheese\n)")
}

func TestStdioProcessCloseKillsAServerThatStays(t *testing.T) {
	// The server ignores the end of its input (and its output stays open).
	tr := shServer(t, `exec sleep 600`)
	tr.closeTimeout = 10 * time.Millisecond
	start := time.Now()
	require.NoError(t, tr.close())
	assert.Less(t, time.Since(start), 5*time.Second, "Close is bounded")
	_, err := tr.roundTrip(context.Background(), echoReq(1), nil, noMessages)
	require.ErrorIs(t, err, ErrClosed)
}

// TestStdioRealBinary starts `fastmcp-bench serve --stdio` and speaks to it in every era.
func TestStdioRealBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the fastmcp-bench binary")
	}
	bin := filepath.Join(t.TempDir(), "fastmcp-bench")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/fastmcp-bench").CombinedOutput()
	require.NoError(t, err, "%s", out)
	args := []string{"serve", "--stdio", "--fixtures", "conformance,demo"}

	for _, era := range []Era{EraModern, EraAuto, EraLegacy} {
		t.Run(era.String(), func(t *testing.T) {
			asked := 0
			c, err := Connect(context.Background(), "", Config{Command: bin, Args: args, Era: era,
				Elicitation: func(context.Context, json.RawMessage) (json.RawMessage, error) {
					asked++
					return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
				}})
			require.NoError(t, err)
			defer func() { require.NoError(t, c.Close()) }()
			assert.Equal(t, era != EraLegacy, c.Modern())

			res, err := c.CallTool(context.Background(), "echo", map[string]string{"text": "hi"})
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"hi"}]`, string(res.Content))

			res, err = c.CallTool(context.Background(), "greet_user", map[string]any{})
			require.NoError(t, err)
			assert.JSONEq(t, `[{"type":"text","text":"Hello, Ada!"}]`, string(res.Content))
			assert.Equal(t, 1, asked)

			cancelledSleep(t, c)
		})
	}
}

// cancelledSleep abandons a running sleep call and waits, bounded, for the server's
// sleep_stats to count it cancelled.
func cancelledSleep(t *testing.T, c *Client) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	running := make(chan struct{}, 1)
	go func() {
		<-running
		cancel()
	}()
	_, err := c.CallTool(ctx, "sleep", map[string]int{"ms": 600_000}, WithProgress(func(Progress) {
		select {
		case running <- struct{}{}:
		default:
		}
	}))
	require.ErrorIs(t, err, context.Canceled)
	assert.EventuallyWithT(t, func(ct *assert.CollectT) {
		stats, err := Call[struct{}, fixtures.SleepStats](context.Background(), c, "sleep_stats", struct{}{})
		require.NoError(ct, err)
		assert.Equal(ct, fixtures.SleepStats{Started: 1, Cancelled: 1}, stats)
	}, 10*time.Second, 5*time.Millisecond, "the server saw notifications/cancelled")
}

func TestStdioCancellationObservedServerSide(t *testing.T) {
	for _, era := range []Era{EraModern, EraLegacy} {
		t.Run(era.String(), func(t *testing.T) {
			c := stdioClient(t, pipeServer(t, fixtureServer(t), stdioOptions{}), Config{Era: era})
			cancelledSleep(t, c)
		})
	}
}

func TestStdioProcessEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	cfg, err := Config{Command: "sh", Env: []string{"MCP_TEST_VALUE=from-env"}, Dir: dir,
		Args: []string{"-c", `read line; printf '{"jsonrpc":"2.0","id":1,"result":{"dir":"%s","v":"%s"}}\n' "$(pwd -P)" "$MCP_TEST_VALUE"; read rest`}}.withDefaults()
	require.NoError(t, err)
	tr, err := startStdioProcess(context.Background(), &cfg)
	require.NoError(t, err)
	defer func() { require.NoError(t, tr.close()) }()
	resp, err := tr.roundTrip(context.Background(), echoReq(1), nil, noMessages)
	require.NoError(t, err)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"dir":"`+real+`","v":"from-env"}}`, string(resp))
}

// TestStdioDefaults pins the documented defaults of the stdio transport's bounds.
func TestStdioDefaults(t *testing.T) {
	assert.Equal(t, 16<<20, DefaultMaxLineBytes)
	assert.Equal(t, DefaultMaxResponseBytes, DefaultMaxLineBytes, "one stdio line is one response")
	assert.Equal(t, 16, DefaultMaxServerRequests)
	assert.Equal(t, 2*time.Second, DefaultProbeTimeout)
	assert.Equal(t, 2*time.Second, DefaultCloseTimeout)

	tr, _ := newRawServer(t, stdioOptions{})
	assert.Equal(t, DefaultMaxLineBytes, tr.conn.lines.max)
	assert.Equal(t, DefaultMaxServerRequests, cap(tr.conn.sem))
	assert.Equal(t, DefaultProbeTimeout, tr.probeTimeout)
	assert.Equal(t, DefaultCloseTimeout, tr.closeTimeout)
	assert.Equal(t, DefaultRequestTimeout, tr.conn.timeout)
}

// syncBuffer is a bytes.Buffer safe for the process's stderr copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStdioProcessStderrReachesConfigStderr(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	var errOut syncBuffer
	cfg, err := Config{Command: "sh", Args: []string{"-c", `read line; echo "out of cheese" >&2; exit 3`}, Stderr: &errOut}.withDefaults()
	require.NoError(t, err)
	tr, err := startStdioProcess(context.Background(), &cfg)
	require.NoError(t, err)
	_, err = tr.roundTrip(context.Background(), echoReq(1), nil, noMessages)
	require.ErrorIs(t, err, ErrServerExited)
	// The captured tail still explains the exit, so both writers got the line.
	assert.EqualError(t, err, "client: stdio server exited: its output ended (exit status 3; stderr: out of cheese\n)")
	require.NoError(t, tr.close()) // waits for the process, so its stderr is fully copied
	assert.Equal(t, "out of cheese\n", errOut.String())
}
