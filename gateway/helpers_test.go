package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// probe records what a test backend saw, for the tests that run it in process.
type probe struct {
	started   chan struct{} // a "slow" call started
	cancelled chan struct{} // a "slow" call's context ended
	mu        sync.Mutex
	auth      []string // Authorization headers the backend's endpoint received
}

func newProbe() *probe {
	return &probe{started: make(chan struct{}, 8), cancelled: make(chan struct{}, 8)}
}

type textIn struct {
	Text string `json:"text"`
}

// newBackendServer is a test backend named name: its tools, prompt, resource and template
// answer with its name, so a test tells which backend served a call.
func newBackendServer(name string, p *probe, dialects ...fastmcp.Dialect) *fastmcp.Server {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "backend-" + name, Version: "1"}, &fastmcp.Config{Dialects: dialects})
	if err != nil {
		panic(err)
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "echo", Description: "echoes text"},
		func(ctx context.Context, r *fastmcp.Request, in textIn) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Content: []fastmcp.Content{
				fastmcp.RawContent(json.RawMessage(`{"type":"text","text":` + strconv.Quote(name+": "+in.Text) + `,"annotations":{"priority":0.5}}`)),
			}}, nil
		})
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "fail", Description: "fails with a JSON-RPC error"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{}, fastmcp.NewError(-32042, "Custom failure", json.RawMessage(`{"why":"test"}`))
		})
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "pid", Description: "the backend's process id"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			return fastmcp.ToolResult{Text: strconv.Itoa(os.Getpid())}, nil
		})
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "slow", Description: "reports progress every 10 ms until cancelled"},
		func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
			_ = r.Progress(ctx, 1, 0, "started")
			if p != nil {
				p.started <- struct{}{}
			}
			// Over HTTP a caller that went away is seen when a write fails: keep writing.
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for n := 2.0; ctx.Err() == nil; n++ {
				select {
				case <-ctx.Done():
				case <-tick.C:
					_ = r.Progress(ctx, n, 0, "")
				}
			}
			if p != nil {
				p.cancelled <- struct{}{}
			}
			return fastmcp.ToolResult{}, ctx.Err()
		})
	srv.AddPrompt(fastmcp.Prompt{Name: "hello", Arguments: []fastmcp.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, r *fastmcp.Request, args map[string]string) (fastmcp.PromptResult, error) {
			return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{fastmcp.UserMessage(fastmcp.Text(name + " says hello to " + args["who"]))}}, nil
		})
	srv.AddResource(fastmcp.Resource{URI: "mem://note", Name: "note", MimeType: "text/plain"},
		func(ctx context.Context, r *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
			return []fastmcp.ResourceContents{{URI: uri, Text: "note of " + name}}, nil
		})
	srv.AddResourceTemplate(fastmcp.ResourceTemplate{URITemplate: "mem://items/{id}", Name: "item"},
		func(ctx context.Context, r *fastmcp.Request, uri string, vars map[string]string) ([]fastmcp.ResourceContents, error) {
			return []fastmcp.ResourceContents{{URI: uri, Text: name + " item " + vars["id"]}}, nil
		})
	return srv
}

// serveHTTP serves core on a free loopback port until stop or the end of the test; addr
// reuses a port (a backend restarted where it was).
func serveHTTP(t testing.TB, core *fastmcp.Server, addr string, p *probe) (url string, stop func()) {
	t.Helper()
	return serveHTTPWith(t, core, streamable.ListenerConfig{Addr: addr}, p)
}

// serveHTTPWith is serveHTTP with the listener's configuration (cfg.Addr empty: a free
// port).
func serveHTTPWith(t testing.TB, core *fastmcp.Server, cfg streamable.ListenerConfig, p *probe) (url string, stop func()) {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if p != nil {
		cfg.RequestGate = func(ctx context.Context, r streamable.GateRequest) (streamable.GateDecision, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			for _, v := range r.Header.Values("Authorization") {
				p.auth = append(p.auth, string(v))
			}
			return streamable.GateDecision{}, nil
		}
	}
	s, err := streamable.New(core, cfg)
	require.NoError(t, err)
	require.NoError(t, s.Listen())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = s.Shutdown(ctx)
			require.ErrorIs(t, <-done, streamable.ErrServerClosed)
		})
	}
	t.Cleanup(stop)
	return s.URL(), stop
}

// startGateway builds a gateway over backends, served over HTTP; it returns the gateway and
// its endpoint.
func startGateway(t testing.TB, cfg Config) (*Gateway, string) {
	t.Helper()
	return startGatewayWith(t, nil, cfg)
}

// startGatewayWith is startGateway with the gateway Server's configuration (state keys).
func startGatewayWith(t testing.TB, fcfg *fastmcp.Config, cfg Config) (*Gateway, string) {
	t.Helper()
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "gateway", Version: "1"}, fcfg)
	require.NoError(t, err)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MinRestartDelay == 0 {
		cfg.MinRestartDelay, cfg.MaxRestartDelay = 10*time.Millisecond, 100*time.Millisecond
	}
	g, err := New(srv, cfg)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g.Start(ctx)
	t.Cleanup(func() { require.NoError(t, g.Close()) })
	url, _ := serveHTTP(t, srv, "", nil)
	return g, url
}

// stdioBackend is a Backend that re-executes this test binary as a stdio server.
func stdioBackend(name string) Backend {
	return Backend{Name: name, Command: os.Args[0], Env: []string{stdioBackendEnv + "=" + name}}
}

// connect dials the gateway as a caller of era e.
func connect(t testing.TB, url string, e client.Era) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, url, client.Config{Era: e})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

const wireMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// post sends one literal 2026-07-28 request with its mirrored headers and returns the
// status and the body (an event stream's data lines joined, or the JSON body).
func post(t testing.TB, url, method, name, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	return resp.StatusCode, strings.Join(data, "\n")
}

// waitFor polls cond until it holds or the deadline passes: for a state another process
// reaches (a backend restarted) that sends no signal the test can wait on.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
