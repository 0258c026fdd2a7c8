package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/pool"
)

func TestMain(m *testing.M) {
	if runChild() {
		return
	}
	// IgnoreCurrent covers the default pool that ants starts when imported.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// meta is the _meta of a valid 2026-07-28 request.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// call returns a tools/call request line for tool with the JSON object args.
func call(id, tool, args string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,` + meta + `}}`
}

// callWithToken is call with a progressToken.
func callWithToken(id, tool, args, token string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args +
		`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":` + token + `}}}`
}

// cancel returns a notifications/cancelled line for the id literal.
func cancel(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}`
}

// testTools are the tools of newTestServer.
type testTools struct {
	// gates holds a channel per "wait" call key; the tool returns when it is closed, or when
	// its context ends.
	mu    sync.Mutex
	gates map[string]chan struct{}
	// started receives the key of each "wait" call when it starts.
	started chan string
	// ended receives the key and context error of each "wait" call when it returns.
	ended chan string
}

func (tt *testTools) gate(key string) chan struct{} {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	g := tt.gates[key]
	if g == nil {
		g = make(chan struct{})
		tt.gates[key] = g
	}
	return g
}

// open releases the "wait" call with key; opening it again does nothing.
func (tt *testTools) open(key string) {
	g := tt.gate(key)
	tt.mu.Lock()
	defer tt.mu.Unlock()
	select {
	case <-g:
	default:
		close(g)
	}
}

type textArgs struct {
	Text string `json:"text"`
}

type keyArgs struct {
	Key string `json:"key"`
}

type progressArgs struct {
	Steps int `json:"steps"`
}

// newTestServer returns a server with the tools "echo" (returns its text), "wait" (blocks
// until its key's gate opens or its context ends), "progress" (reports steps progress
// notifications, then returns "done"), "stdout" (prints to os.Stdout) and "panic".
func newTestServer(tb testing.TB) (*fastmcp.Server, *testTools) {
	tb.Helper()
	s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "test", Version: "1.0.0"},
		&fastmcp.Config{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(tb, err)
	tt := &testTools{gates: map[string]chan struct{}{}, started: make(chan string, 1000), ended: make(chan string, 1000)}
	fastmcp.AddTool(s, fastmcp.Tool{Name: "echo"}, func(_ context.Context, _ *fastmcp.Request, in textArgs) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: in.Text}, nil
	})
	fastmcp.AddTool(s, fastmcp.Tool{Name: "wait"}, func(ctx context.Context, _ *fastmcp.Request, in keyArgs) (fastmcp.ToolResult, error) {
		tt.started <- in.Key
		defer func() { tt.ended <- in.Key + ":" + fmt.Sprint(ctx.Err()) }()
		select {
		case <-tt.gate(in.Key):
			return fastmcp.ToolResult{Text: in.Key}, nil
		case <-ctx.Done():
			return fastmcp.ToolResult{}, ctx.Err()
		}
	})
	fastmcp.AddTool(s, fastmcp.Tool{Name: "progress"}, func(ctx context.Context, r *fastmcp.Request, in progressArgs) (fastmcp.ToolResult, error) {
		for i := 1; i <= in.Steps; i++ {
			if err := r.Progress(ctx, float64(i), float64(in.Steps), ""); err != nil {
				return fastmcp.ToolResult{}, err
			}
		}
		return fastmcp.ToolResult{Text: "done"}, nil
	})
	fastmcp.AddTool(s, fastmcp.Tool{Name: "panic"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		panic("boom")
	})
	return s, tt
}

// quietPool is a pool.Config whose logger discards (panics are logged by the executor).
func quietPool(cfg pool.Config) pool.Config {
	cfg.Logger = slog.New(slog.DiscardHandler)
	return cfg
}

// serveAll serves input to completion and returns the output lines.
func serveAll(tb testing.TB, s *fastmcp.Server, input string, cfg Config) []string {
	tb.Helper()
	out, err := serveOutput(tb, s, input, cfg)
	require.NoError(tb, err)
	return out
}

// serveOutput serves input and returns the output lines and Serve's result.
func serveOutput(tb testing.TB, s *fastmcp.Server, input string, cfg Config) ([]string, error) {
	tb.Helper()
	var out bytes.Buffer
	cfg.Input = strings.NewReader(input)
	cfg.Output = &out
	cfg.Pool = quietPool(cfg.Pool)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	err := Serve(context.Background(), s, cfg)
	return lines(tb, out.Bytes()), err
}

// lines splits output into lines, checking that it ends with a newline and is 7-bit clean.
func lines(tb testing.TB, out []byte) []string {
	tb.Helper()
	if len(out) == 0 {
		return nil
	}
	require.Equal(tb, byte('\n'), out[len(out)-1], "output ends inside a line: %q", out)
	for _, b := range out {
		require.Less(tb, b, byte(0x80), "output is not 7-bit clean: %q", out)
	}
	return strings.Split(string(out[:len(out)-1]), "\n")
}

// message is a decoded output line.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

func decodeLine(tb testing.TB, line string) message {
	tb.Helper()
	var m message
	dec := json.NewDecoder(strings.NewReader(line))
	dec.DisallowUnknownFields()
	var generic map[string]json.RawMessage
	require.NoError(tb, json.Unmarshal([]byte(line), &generic), "line %q", line)
	require.JSONEq(tb, `"2.0"`, string(generic["jsonrpc"]), "line %q", line)
	require.NoError(tb, json.Unmarshal([]byte(line), &m), "line %q", line)
	m.raw = line
	return m
}

// text returns the first text block of a tools/call result.
func (m message) text(tb testing.TB) string {
	tb.Helper()
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	require.NoError(tb, json.Unmarshal(m.Result, &r), "line %q", m.raw)
	require.NotEmpty(tb, r.Content, "line %q", m.raw)
	return r.Content[0].Text
}

// requireError checks that m is an error response with id (a JSON literal, "null") and code.
func requireError(tb testing.TB, m message, id string, code int, msg string) {
	tb.Helper()
	require.NotNil(tb, m.Error, "not an error: %q", m.raw)
	require.Equal(tb, id, string(m.ID), "line %q", m.raw)
	require.Equal(tb, code, m.Error.Code, "line %q", m.raw)
	if msg != "" {
		require.Equal(tb, msg, m.Error.Message, "line %q", m.raw)
	}
}

// client drives Serve over pipes, line by line.
type client struct {
	tb    testing.TB
	in    *io.PipeWriter
	lines chan string
	done  chan error
	cfg   Config
}

// startClient runs serve (Serve, or serve with a substitute handler) in a goroutine, fed
// through a pipe. Its output goes to lines; done receives Serve's result.
func startClient(tb testing.TB, run func(cfg Config) error, cfg Config) *client {
	tb.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{tb: tb, in: inW, lines: make(chan string, 1000), done: make(chan error, 1)}
	cfg.Input, cfg.Output = inR, outW
	cfg.Pool = quietPool(cfg.Pool)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c.cfg = cfg
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	go func() {
		err := run(cfg)
		_ = outW.Close()
		<-readDone
		c.done <- err
	}()
	tb.Cleanup(func() {
		_ = inW.Close()
		_ = inR.Close()
	})
	return c
}

func (c *client) send(lines ...string) {
	c.tb.Helper()
	for _, l := range lines {
		_, err := io.WriteString(c.in, l+"\n")
		require.NoError(c.tb, err)
	}
}

// recv returns the next output line.
func (c *client) recv() message {
	c.tb.Helper()
	select {
	case l, ok := <-c.lines:
		require.True(c.tb, ok, "output ended")
		return decodeLine(c.tb, l)
	case <-time.After(10 * time.Second): // a guard against a hang, not a wait for an event
		c.tb.Fatal("no output line")
	}
	return message{}
}

// close ends the input and returns the lines written after the last recv and Serve's result.
func (c *client) close() ([]string, error) {
	c.tb.Helper()
	require.NoError(c.tb, c.in.Close())
	var rest []string
	for l := range c.lines {
		rest = append(rest, l)
	}
	return rest, <-c.done
}

// discard is a logger for tests that provoke logged failures.
var discard = slog.New(slog.DiscardHandler)

// newExecutor returns an executor for injection, closed when the test ends.
func newExecutor(tb testing.TB, cfg pool.Config) *pool.Executor {
	tb.Helper()
	ex, err := pool.New(quietPool(cfg))
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = ex.Close(context.Background()) })
	return ex
}

// recordingWriter records each Write call.
type recordingWriter struct {
	mu     sync.Mutex
	calls  []string
	closed bool
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, string(p))
	return len(p), nil
}

// Close records a call that Serve must never make.
func (w *recordingWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return nil
}

func (w *recordingWriter) writes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.calls...)
}
