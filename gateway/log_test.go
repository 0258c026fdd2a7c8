package gateway

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/client"
	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// stdioLogBackendEnv makes the re-executed test binary serve newLogServer instead, in the
// era it names ("modern" or "legacy").
const stdioLogBackendEnv = "GATEWAY_TEST_STDIO_LOG_BACKEND"

var logBackendDialects = map[string][]fastmcp.Dialect{"modern": {fastmcp.Modern}, "legacy": {fastmcp.Legacy20251125}}

type logData struct {
	Entry string `json:"entry"`
	Level string `json:"level"`
}

// newLogServer is a backend whose tool, prompt and resource "chatty" each log at debug,
// info and warning (logger "chatty") and answer with the level they were asked to log at;
// whose tool "ask" logs before it asks the caller's name and after it got it; and whose
// tool "pair" logs while a second call to it runs, and returns once both have logged.
func newLogServer(dialects ...fastmcp.Dialect) *fastmcp.Server {
	srv, err := fastmcp.NewServer(fastmcp.Implementation{Name: "logs", Version: "1"}, &fastmcp.Config{Dialects: dialects})
	if err != nil {
		panic(err)
	}
	chatter := func(ctx context.Context, r *fastmcp.Request, entry string) string {
		for _, l := range []fastmcp.LogLevel{fastmcp.LogDebug, fastmcp.LogInfo, fastmcp.LogWarning} {
			_ = r.Log(ctx, l, "chatty", logData{Entry: entry, Level: l.String()})
		}
		return entry + " served at " + r.LogLevel().String()
	}
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "chatty"}, func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
		return fastmcp.ToolResult{Text: chatter(ctx, r, "tool")}, nil
	})
	srv.AddPrompt(fastmcp.Prompt{Name: "chatty"}, func(ctx context.Context, r *fastmcp.Request, args map[string]string) (fastmcp.PromptResult, error) {
		return fastmcp.PromptResult{Messages: []fastmcp.PromptMessage{fastmcp.UserMessage(fastmcp.Text(chatter(ctx, r, "prompt")))}}, nil
	})
	srv.AddResource(fastmcp.Resource{URI: "mem://chatty", Name: "chatty"}, func(ctx context.Context, r *fastmcp.Request, uri string) ([]fastmcp.ResourceContents, error) {
		return []fastmcp.ResourceContents{{URI: uri, Text: chatter(ctx, r, "resource")}}, nil
	})
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "ask"}, func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
		var ans struct {
			Content struct {
				Name string `json:"name"`
			} `json:"content"`
		}
		ok, err := r.InputResponse("who", &ans)
		if err != nil {
			return fastmcp.ToolResult{}, err
		}
		if !ok {
			_ = r.Log(ctx, fastmcp.LogInfo, "ask", "asking")
			return fastmcp.ToolResult{}, &fastmcp.InputRequired{Requests: map[string]fastmcp.InputRequest{
				"who": fastmcp.ElicitForm("Name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)),
			}}
		}
		_ = r.Log(ctx, fastmcp.LogInfo, "ask", "answered "+ans.Content.Name)
		return fastmcp.ToolResult{Text: "hello " + ans.Content.Name}, nil
	})
	var pair meeting
	fastmcp.AddTool(srv, fastmcp.Tool{Name: "pair"}, func(ctx context.Context, r *fastmcp.Request, in struct{}) (fastmcp.ToolResult, error) {
		if err := pair.meet(ctx); err != nil {
			return fastmcp.ToolResult{}, err
		}
		_ = r.Log(ctx, fastmcp.LogWarning, "pair", "paired")
		if err := pair.meet(ctx); err != nil { // both have logged before either answers
			return fastmcp.ToolResult{}, err
		}
		return fastmcp.ToolResult{Text: "paired"}, nil
	})
	return srv
}

// meeting lets two calls wait for each other.
type meeting struct {
	mu      sync.Mutex
	waiting chan struct{}
}

func (m *meeting) meet(ctx context.Context) error {
	m.mu.Lock()
	if ch := m.waiting; ch != nil {
		m.waiting = nil
		m.mu.Unlock()
		close(ch)
		return nil
	}
	ch := make(chan struct{})
	m.waiting = ch
	m.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// logBackend is one backend of the log tests. A legacy one logs at its session's (or
// connection's) level, info, whatever the caller asks.
type logBackend struct {
	name   string
	legacy bool
	stdio  bool
	start  func(t *testing.T) Backend
}

func logBackends() []logBackend {
	httpBackend := func(cfg streamable.ListenerConfig, dialects ...fastmcp.Dialect) func(t *testing.T) Backend {
		return func(t *testing.T) Backend {
			url, _ := serveHTTPWith(t, newLogServer(dialects...), cfg, nil)
			return Backend{Name: "solo", URL: url}
		}
	}
	stdioBackend := func(era string) func(t *testing.T) Backend {
		return func(t *testing.T) Backend {
			return Backend{Name: "solo", Command: os.Args[0], Env: []string{stdioBackendEnv + "=solo", stdioLogBackendEnv + "=" + era}}
		}
	}
	return []logBackend{
		{name: "modern http", start: httpBackend(streamable.ListenerConfig{}, fastmcp.Modern)},
		{name: "legacy http session", legacy: true, start: httpBackend(streamable.ListenerConfig{Config: streamable.Config{LegacySessions: true}}, fastmcp.Legacy20251125)},
		{name: "legacy http stateless", legacy: true, start: httpBackend(streamable.ListenerConfig{}, fastmcp.Legacy20251125)},
		{name: "modern stdio", stdio: true, start: stdioBackend("modern")},
		{name: "legacy stdio", legacy: true, stdio: true, start: stdioBackend("legacy")},
	}
}

// logMeta is a 2026-07-28 _meta asking for log messages at level ("": none).
func logMeta(level, caps string) string {
	m := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps
	if level != "" {
		m += `,"io.modelcontextprotocol/logLevel":"` + level + `"`
	}
	return m + "}"
}

// logNote is the notifications/message the caller gets for data logged at level.
func logNote(level, logger, data string) string {
	return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"` + level + `","logger":"` + logger + `","data":` + data + `}}`
}

// TestLogForwarded: for each backend era and transport, the log messages of a tool call, a
// prompts/get and a resources/read reach a 2026-07-28 caller on the call's own stream, in
// order, with their level, logger and data, at the caller's level (a 2026-07-28 backend is
// asked at it; a legacy one logs at its own, info); a caller that asks for none gets none.
// An initialize-era caller gets them at its session's level.
func TestLogForwarded(t *testing.T) {
	for _, be := range logBackends() {
		t.Run(be.name, func(t *testing.T) {
			g, gw := startGateway(t, Config{Backends: []Backend{be.start(t)}, HealthInterval: time.Hour})
			require.True(t, g.Status()[0].Up, "%v", g.Status()[0].Err)
			calls := []struct{ method, name, params string }{
				{"tools/call", "chatty", `"name":"chatty","arguments":{},`},
				{"prompts/get", "chatty", `"name":"chatty",`},
				{"resources/read", "mem://chatty", `"uri":"mem://chatty",`},
			}
			entries := []string{"tool", "prompt", "resource"}
			levels := []string{"debug", "info", "warning"} // what the entries log, lowest first
			for _, asked := range []string{"debug", "warning", ""} {
				served := asked
				if asked == "" {
					served = "off"
				}
				if be.legacy {
					served = "info"
				}
				for i, call := range calls {
					_, body := post(t, gw, call.method, call.name, `{"jsonrpc":"2.0","id":1,"method":"`+call.method+`","params":{`+call.params+logMeta(asked, "{}")+`}}`)
					lines := strings.Split(body, "\n")
					want := []string{}
					if asked != "" {
						// At or above the caller's level and the backend's.
						from := max(slices.Index(levels, asked), slices.Index(levels, served))
						for _, l := range levels[from:] {
							want = append(want, logNote(l, "chatty", `{"entry":"`+entries[i]+`","level":"`+l+`"}`))
						}
					}
					assert.Equal(t, want, lines[:len(lines)-1], "%s asked at %q", call.method, asked)
					assert.Contains(t, lines[len(lines)-1], entries[i]+` served at `+served)
				}
			}

			c := connect(t, gw, client.EraLegacy)
			var got []string
			res, err := c.CallTool(context.Background(), "chatty", nil, client.WithLog("debug", func(m client.LogMessage) {
				got = append(got, m.Level+" "+m.Logger+" "+string(m.Data))
			}))
			require.NoError(t, err)
			assert.Equal(t, []string{`info chatty {"entry":"tool","level":"info"}`, `warning chatty {"entry":"tool","level":"warning"}`}, got)
			assert.Contains(t, string(res.Content), "tool served at info")
		})
	}
}

// TestLogAcrossInputRounds: a call that asks for input logs before it asks and after it got
// the answer; each message reaches the caller's request of its round (an initialize-era
// backend's call is parked between them, its messages forwarded to the round waiting).
func TestLogAcrossInputRounds(t *testing.T) {
	for _, be := range logBackends() {
		t.Run(be.name, func(t *testing.T) {
			_, gw := startGateway(t, Config{Backends: []Backend{be.start(t)}, HealthInterval: time.Hour})
			key := "who"
			if be.legacy {
				key = "elicitation_1" // the backend asked with elicitation/create
			}
			askCall := func(id, extra string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"ask","arguments":{},` + extra + logMeta("info", `{"elicitation":{"form":{}}}`) + `}}`
			}
			_, body := post(t, gw, "tools/call", "ask", askCall("1", ""))
			lines := strings.Split(body, "\n")
			require.Len(t, lines, 2, body)
			assert.Equal(t, logNote("info", "ask", `"asking"`), lines[0])
			state := stateOf(t, lines[1])
			assert.Equal(t, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"`+key+`":`+askForm+`},"requestState":"`+state+`",`+gwMeta+`}}`, lines[1])

			_, body = post(t, gw, "tools/call", "ask", askCall("2", answer(key, state)))
			assert.Equal(t, logNote("info", "ask", `"answered Alice"`)+"\n"+
				`{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[{"type":"text","text":"hello Alice"}],`+gwMeta+`}}`, body)
		})
	}
}

// TestLogConcurrentCalls: two calls that log while both run. Over HTTP each message is on its
// call's stream and reaches its caller; over stdio nothing says which call a message belongs
// to, so neither is forwarded. A call alone on the stdio connection gets its messages (see
// TestLogForwarded, whose backends have no other request in flight: HealthInterval is long).
func TestLogConcurrentCalls(t *testing.T) {
	for _, be := range logBackends() {
		t.Run(be.name, func(t *testing.T) {
			_, gw := startGateway(t, Config{Backends: []Backend{be.start(t)}, HealthInterval: time.Hour})
			c := connect(t, gw, client.EraModern)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			type outcome struct {
				logs []string
				err  error
			}
			done := make(chan outcome, 2)
			for range 2 {
				go func() {
					var o outcome
					_, o.err = c.CallTool(ctx, "pair", nil, client.WithLog("debug", func(m client.LogMessage) {
						o.logs = append(o.logs, m.Level+" "+m.Logger+" "+string(m.Data))
					}))
					done <- o
				}()
			}
			want := []string{`warning pair "paired"`}
			if be.stdio {
				want = nil
			}
			for range 2 {
				o := <-done
				require.NoError(t, o.err)
				assert.Equal(t, want, o.logs)
			}
		})
	}
}
