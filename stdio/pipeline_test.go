package stdio

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/pool"
)

// oneWorker starts a connection to a newLegacyServer whose executor has a single worker.
func oneWorker(t *testing.T) (*client, *testTools) {
	t.Helper()
	s, tt := newLegacyServer(t)
	ex := newExecutor(t, pool.Config{MaxConcurrency: 1})
	return startClient(t, serveServer(s), Config{Executor: ex}), tt
}

// writeHeld holds the only worker with a modern "wait" call and writes lines in a single
// write: every line then reaches the reader while the first one still waits in the queue,
// and synctest.Wait lets the reader do all it will do with them before the worker is let
// go. So a line classified before the state of the lines ahead of it is applied is caught
// every time, not by luck of timing.
func writeHeld(t *testing.T, c *client, tt *testTools, lines ...string) {
	t.Helper()
	c.send(call(`"hold"`, "wait", `{"key":"hold"}`))
	require.Equal(t, "hold", <-tt.started)
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	_, err := c.in.Write(b)
	require.NoError(t, err)
	synctest.Wait()
	tt.open("hold")
	require.Equal(t, `"hold"`, lineID(c.rawLine()))
}

// A request the client pipelines right after initialize, before initialize's response, is
// served in the revision initialize negotiates: the stream is ordered.
func TestLegacyPipelinedAfterInitialize(t *testing.T) {
	for _, rev := range []string{"2025-11-25", "2025-06-18"} {
		t.Run(rev, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, tt := oneWorker(t)
				writeHeld(t, c, tt, initialize("0", rev, `{}`), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
				c.expect(rev, "InitializeResult", initializedE2E("0", rev))
				c.expect(rev, "ListToolsResult", toolsListE2E)
				closeClean(t, c)
			})
		})
	}
}

// A request pipelined right after logging/setLevel logs at the level it set.
func TestLegacyPipelinedAfterSetLevel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, tt := oneWorker(t)
		c.send(initialize("0", "2025-11-25", `{}`))
		c.expect("2025-11-25", "InitializeResult", initializedE2E("0", "2025-11-25"))
		writeHeld(t, c, tt, initialized, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`, legacyCall("2", "logs"))
		c.expect("2025-11-25", "EmptyResult", `{"jsonrpc":"2.0","id":1,"result":{}}`)
		for _, m := range []string{`"info","data":"Tool execution started"`, `"info","data":"Tool processing data"`, `"info","data":"Tool execution completed"`, `"debug","data":"detail"`} {
			c.expect("2025-11-25", "LoggingMessageNotification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":`+m+`}}`)
		}
		c.expect("2025-11-25", "CallToolResult", textResult("2", `"logged"`))
		closeClean(t, c)
	})
}

// The lines after an initialize wait for its outcome at most until its deadline: one that
// never answers times out, and the next line is then read, in the state the connection had
// (here none: the modern rules refuse a request without _meta).
func TestLegacyPipelinedAfterInitializeTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, _ := newTestServer(t)
		h := newLegacyCore(s)
		h.initGate, h.initStarted = make(chan struct{}), make(chan struct{}, 1)
		c := startClient(t, h.run(context.Background()), Config{RequestTimeout: 2 * time.Second})
		start := time.Now()
		_, err := io.WriteString(c.in, initialize("1", "2025-11-25", `{}`)+"\n"+legacyCall("2", "probe")+"\n")
		require.NoError(t, err)
		<-h.initStarted
		requireError(t, c.recv(), "1", -32603, "Request execution timed out")
		require.Equal(t, 2*time.Second, time.Since(start))
		close(h.initGate) // its handler returns late: the connection adopts nothing
		requireError(t, c.recv(), "2", -32602, "")
		rest, err := c.close()
		require.NoError(t, err)
		require.Empty(t, rest)
	})
}
