package observe

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// startsObserver keeps the Start of each request by tool.
type startsObserver struct {
	mu     sync.Mutex
	starts map[string]time.Time
}

func (o *startsObserver) RequestStart(ctx context.Context, info fastmcp.RequestInfo) context.Context {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.starts[info.Tool] = info.Start
	return ctx
}

func (o *startsObserver) RequestEnd(context.Context, fastmcp.RequestInfo, fastmcp.RequestOutcome) {}

func (o *startsObserver) start(tool string) time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.starts[tool]
}

// TestNativeStartIsReceiveTime checks that on the native listener a request's Start is when
// it was received, not when a worker took it: with one worker busy, a request queued behind
// it starts before the worker is released.
func TestNativeStartIsReceiveTime(t *testing.T) {
	o := &startsObserver{starts: map[string]time.Time{}}
	core := newCore(t, o)
	entered, release := make(chan struct{}), make(chan struct{})
	fastmcp.AddTool(core, fastmcp.Tool{Name: "block"}, func(context.Context, *fastmcp.Request, struct{}) (fastmcp.ToolResult, error) {
		close(entered)
		<-release
		return fastmcp.ToolResult{Text: "done"}, nil
	})
	s := startHTTP(t, core, streamable.ListenerConfig{DisableInline: true, Config: streamable.Config{MaxConcurrency: 1}})
	call := func(id, tool, args string) string {
		return post(s, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{`+meta+`},"name":"`+tool+`","arguments":`+args+`}}`,
			"Mcp-Method: tools/call", "Mcp-Name: "+tool)
	}
	statuses := make(chan int, 2)
	go func() { resp, _ := exchange(t, hostOf(s.URL()), call("1", "block", "{}")); statuses <- resp.StatusCode }()
	<-entered
	go func() {
		resp, _ := exchange(t, hostOf(s.URL()), call("2", "echo", `{"text":"x"}`))
		statuses <- resp.StatusCode
	}()
	require.Eventually(t, func() bool { return s.Stats().InFlight == 2 }, 10*time.Second, time.Millisecond, "the echo is queued")
	released := time.Now()
	close(release)
	assert.Equal(t, http.StatusOK, <-statuses)
	assert.Equal(t, http.StatusOK, <-statuses)
	echo := o.start("echo")
	require.False(t, echo.IsZero())
	assert.True(t, echo.Before(released), "the queued request starts at receipt (%v), before the worker was free (%v)", echo, released)
}
