package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
	"github.com/fastmcp-go/fastmcp/fastmcp/transport"
	"github.com/fastmcp-go/fastmcp/internal/wirevector"
)

// TestVectors runs every wire vector (fastmcp/testdata/vectors, format in internal/wirevector)
// through Serve over in-memory pipes, one connection per file as one client process would
// hold it: each request is one input line, and what the vector expects is read back from the
// output, the request's notifications (progress, log messages, a listen stream's events)
// written before its reply. stdio writes 7-bit output, so the expectations are escaped the
// same way. No file needs an exception: nothing in them depends on HTTP.
//
// For a line that must get nothing back (a notification, a response object), the exchange
// sends a barrier request after it and reads up to the barrier's reply: anything written
// before it for the line is reported as a reply. When the file ends, the input is closed and
// nothing more may be written.
//
// A step's version (version=V, the MCP-Protocol-Version header over HTTP) is, on stdio, the
// version a connection negotiated: each step goes on a connection at its version, opened
// with an initialize of the exchange's own when there is none yet, and a step without one
// on a connection that negotiated nothing. A step whose initialize succeeds moves its
// connection to the version it negotiated. What differs from the stateless core by design is
// replaced (see stdioReplacements).
func TestVectors(t *testing.T) {
	steps := 0
	for _, v := range wirevector.Load(t, filepath.Join("..", "fastmcp", "testdata", "vectors")) {
		steps += len(v.Steps)
		t.Run(strings.TrimSuffix(v.File, ".txtar"), func(t *testing.T) {
			s, fx := wirevector.NewFixtureServer(t, v.Setup)
			conns := &vectorConns{t: t, s: s, fx: fx, byVersion: map[string]*vectorConn{}}
			wirevector.RunSteps(t, v, conns.exchange, wirevector.Options{ASCII: true, Replace: stdioReplacements(t, s, v)})
			conns.close(v.File)
		})
	}
	t.Logf("%d vector steps through stdio", steps)
}

// vectorConns are the connections of one vector file, by the version each negotiated ("":
// none).
type vectorConns struct {
	t         *testing.T
	s         *fastmcp.Server
	fx        *wirevector.Fixture
	byVersion map[string]*vectorConn
	all       []*client
}

type vectorConn struct {
	c        *client
	exchange wirevector.Exchange
}

// conn returns the connection at version (a version stdio cannot be at, one the server does
// not serve as an initialize-era dialect, is a connection that negotiated nothing).
func (vc *vectorConns) conn(version string) *vectorConn {
	if d := fastmcp.ParseDialect(version); !d.Legacy() || !transport.For(vc.s).Serves(d) {
		version = ""
	}
	if c := vc.byVersion[version]; c != nil {
		return c
	}
	c := startClient(vc.t, func(cfg Config) error { return Serve(context.Background(), vc.s, cfg) }, Config{})
	vc.all = append(vc.all, c)
	conn := &vectorConn{c: c, exchange: vectorExchange(vc.t, c, vc.s, vc.fx)}
	if version != "" {
		c.send(`{"jsonrpc":"2.0","id":"vector-initialize","method":"initialize","params":{"protocolVersion":"` + version +
			`","capabilities":{"sampling":{},"elicitation":{},"roots":{}},"clientInfo":{"name":"vectors","version":"1.0.0"}}}`)
		requireNegotiated(vc.t, c.rawLine(), version)
	}
	vc.byVersion[version] = conn
	return conn
}

func (vc *vectorConns) exchange(st wirevector.Step, req []byte) ([]byte, [][]byte) {
	conn := vc.conn(st.Version)
	reply, notes := conn.exchange(req)
	if v := negotiated(reply); v != "" {
		for k, c := range vc.byVersion {
			if c == conn {
				delete(vc.byVersion, k)
			}
		}
		vc.byVersion[v] = conn // an older connection at v is no longer used
	}
	return reply, notes
}

func (vc *vectorConns) close(file string) {
	for _, c := range vc.all {
		rest, err := c.close()
		require.NoError(vc.t, err)
		require.Empty(vc.t, rest, "output after the last reply of %s", file)
	}
}

// negotiated returns the protocolVersion of an initialize result line, "" for anything else.
func negotiated(line []byte) string {
	var r struct {
		Result *struct {
			ProtocolVersion string          `json:"protocolVersion"`
			ServerInfo      json.RawMessage `json:"serverInfo"`
		} `json:"result"`
	}
	if json.Unmarshal(line, &r) != nil || r.Result == nil || r.Result.ServerInfo == nil {
		return ""
	}
	return r.Result.ProtocolVersion
}

func requireNegotiated(t *testing.T, line, version string) {
	t.Helper()
	require.Equal(t, version, negotiated([]byte(line)), "the exchange's own initialize: %s", line)
	requireLegacyValid(t, version, "InitializeResult", line)
}

// stdioReplacements are the replies stdio gives by design where a stateless transport gives
// the vector's:
//   - a connection carries list_changed and resources/updated, so initialize advertises them;
//   - a connection cannot be at a version the server does not serve (initialize counter-offers
//     one it serves), so a request "with" such a version goes on a connection that negotiated
//     nothing, and the modern rules answer it (unreachableVersion, by method).
func stdioReplacements(t *testing.T, s *fastmcp.Server, v *wirevector.Vector) map[int]wirevector.Replacement {
	const (
		stateless = `"prompts":{},"resources":{},"tools":{}`
		stdio     = `"prompts":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"tools":{"listChanged":true}`
	)
	out := map[int]wirevector.Replacement{}
	for _, st := range v.Steps {
		switch d := fastmcp.ParseDialect(st.Version); {
		case st.ReplyDef == "InitializeResult" && strings.Contains(st.Reply, stateless):
			out[st.Line] = wirevector.Replacement{Reply: strings.Replace(st.Reply, stateless, stdio, 1), ReplyDef: st.ReplyDef,
				Why: "a stdio connection delivers list_changed and resources/updated"}
		case st.HasVersion && d != fastmcp.Modern && !transport.For(s).Serves(d):
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			require.NoError(t, json.Unmarshal([]byte(st.Request), &req))
			r, ok := unreachableVersion[req.Method]
			require.True(t, ok, "%s:%d: add the modern answer to %s to unreachableVersion", v.File, st.Line, req.Method)
			out[st.Line] = wirevector.Replacement{Reply: strings.Replace(r.Reply, "ID", string(req.ID), 1), ReplyDef: r.ReplyDef,
				Why: "stdio cannot be at version " + st.Version + ": the modern rules answer"}
		}
	}
	return out
}

// unreachableVersion is the modern answer, by method, to a request sent without _meta on a
// connection that negotiated nothing (ID stands for the request's id).
var unreachableVersion = map[string]wirevector.Replacement{
	"ping": {Reply: `{"jsonrpc":"2.0","id":ID,"error":{"code":-32601,"message":"Method not found"}}`, ReplyDef: "MethodNotFoundError"},
}

// vectorExchange sends one vector request on c and collects its reply and notifications,
// telling the fixture of each notification as it is read.
func vectorExchange(t *testing.T, c *client, s *fastmcp.Server, fx *wirevector.Fixture) wirevector.Exchange {
	barriers := 0
	return func(req []byte) ([]byte, [][]byte) {
		t.Helper()
		c.send(string(req))
		var reply []byte
		var notes [][]byte
		read := func() (line string, note bool) {
			t.Helper()
			line = c.rawLine()
			if isNotificationLine(line) {
				notes = append(notes, []byte(line))
				if fx.OnNotify != nil {
					fx.OnNotify(s, len(notes), []byte(line))
				}
				return line, true
			}
			return line, false
		}
		if expectsReply(req) {
			for reply == nil {
				if line, note := read(); !note {
					reply = []byte(line)
				}
			}
			return reply, notes
		}
		barriers++
		barrier := fmt.Sprintf(`"wirevector-barrier-%d"`, barriers)
		c.send(`{"jsonrpc":"2.0","id":` + barrier + `,"method":"wirevector/barrier"}`)
		for {
			line, note := read()
			switch {
			case note:
			case lineID(line) == barrier:
				return reply, notes
			case reply == nil:
				reply = []byte(line)
			default:
				t.Fatalf("a second line answers %s:\n%s", req, line)
			}
		}
	}
}

// rawLine returns the next output line as written.
func (c *client) rawLine() string {
	c.tb.Helper()
	select {
	case l, ok := <-c.lines:
		require.True(c.tb, ok, "output ended")
		return l
	case <-time.After(10 * time.Second): // a guard against a hang, not a wait for an event
		c.tb.Fatal("no output line")
	}
	return ""
}

// expectsReply reports whether a client expects an answer to the line: anything but a
// notification (a method and no id) or a response object (a result or an error, no method).
// A line that is not a JSON object gets an error reply.
func expectsReply(line []byte) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal(line, &env) != nil {
		return true
	}
	_, id := env["id"]
	_, method := env["method"]
	_, result := env["result"]
	_, failed := env["error"]
	switch {
	case method:
		return id
	case result || failed:
		return false
	}
	return true
}

// isNotificationLine reports whether an output line is a notification (it names a method).
func isNotificationLine(line string) bool {
	var env map[string]json.RawMessage
	if json.Unmarshal([]byte(line), &env) != nil {
		return false
	}
	_, ok := env["method"]
	return ok
}

// lineID returns the id literal of an output line ("" when it has none).
func lineID(line string) string {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal([]byte(line), &env)
	return string(env.ID)
}
