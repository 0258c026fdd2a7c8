package client

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/streamable"
)

// legacyInitResult is an initialize result at revision v.
func legacyInitResult(id, v string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"` + v + `","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`
}

// eraFake answers server/discover with discover (a whole response body, "%ID%" replaced by
// the request's id), initialize with initResult at the revision it was offered, and
// notifications with 202. It records every request.
func eraFake(t *testing.T, discover string, initVersion string) (*fakeServer, chan *fakeReq) {
	reqs := make(chan *fakeReq, 16)
	f := newFake(t, func(r *fakeReq, w *bufio.Writer) bool {
		reqs <- r
		id := idOf(r.body)
		switch method := decode.Lookup(r.body, "method").String(); {
		case method == "server/discover":
			jsonResp(w, strings.ReplaceAll(discover, "%ID%", id))
		case method == "initialize":
			v := initVersion
			if v == "" {
				v = decode.Lookup(decode.Lookup(r.body, "params").Raw(), "protocolVersion").String()
			}
			jsonResp(w, legacyInitResult(id, v))
		case id != "":
			jsonResp(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[]}}`)
		default:
			w.WriteString("HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n")
		}
		return true
	})
	return f, reqs
}

// Issue 21, 4: the default era talks to the server at Connect: a modern server settles
// 2026-07-28 (one server/discover), a legacy-only one the initialize era, and an address
// where nothing answers fails Connect.
func TestDefaultEraConnectsToAnyServer(t *testing.T) {
	t.Run("modern server", func(t *testing.T) {
		s := startServer(t, streamable.ListenerConfig{})
		c := connect(t, s.URL(), Config{})
		assert.True(t, c.Modern())
		assert.Equal(t, "2026-07-28", c.ProtocolVersion())
		d, err := c.Discover(context.Background())
		require.NoError(t, err)
		assert.Contains(t, d.SupportedVersions, "2026-07-28")
	})
	t.Run("legacy-only server", func(t *testing.T) {
		f, reqs := eraFake(t, `{"jsonrpc":"2.0","id":%ID%,"error":{"code":-32601,"message":"Method not found"}}`, "")
		c := connect(t, f.url(), Config{ClientName: "t", ClientVersion: "1"})
		assert.False(t, c.Modern())
		assert.Equal(t, "2025-11-25", c.ProtocolVersion())
		assert.Equal(t, "server/discover", decode.Lookup((<-reqs).body, "method").String())
		assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, string((<-reqs).body))
	})
	t.Run("nothing answers", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		_, err = Connect(context.Background(), "http://"+addr+"/mcp", Config{})
		require.Error(t, err)
		assert.EqualError(t, err, "client: server/discover: connecting to "+addr+": dial tcp "+addr+": connect: connection refused")
	})
	t.Run("pinned modern still sends nothing", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		require.NoError(t, ln.Close())
		c, err := Connect(context.Background(), "http://"+addr+"/mcp", Config{Era: EraModern})
		require.NoError(t, err)
		require.NoError(t, c.Close())
	})
}

// Issue 21, 2: EraAuto honours server/discover's supportedVersions: without 2026-07-28 it
// initializes at the newest revision both sides speak; with none in common Connect fails.
func TestAutoHonoursSupportedVersions(t *testing.T) {
	discover := func(versions string) string {
		return `{"jsonrpc":"2.0","id":%ID%,"result":{"resultType":"complete","supportedVersions":` + versions +
			`,"capabilities":{},"ttlMs":0,"cacheScope":"public"}}`
	}
	cases := []struct {
		name, versions string
		modern         bool
		offered        string // the initialize's protocolVersion ("": no initialize)
		err            string
	}{
		{"modern among them", `["2025-11-25","2026-07-28"]`, true, "", ""},
		{"initialize era only", `["2025-06-18","2025-11-25"]`, false, "2025-11-25", ""},
		{"2025-06-18 only", `["2025-06-18"]`, false, "2025-06-18", ""},
		{"none in common", `["2030-01-01"]`, false, "", `client: server/discover: the server supports protocol versions ["2030-01-01"], none of which this client speaks`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, reqs := eraFake(t, discover(tc.versions), "")
			c, err := Connect(context.Background(), f.url(), Config{ClientName: "t", ClientVersion: "1"})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			assert.Equal(t, tc.modern, c.Modern())
			<-reqs // the probe
			if tc.offered == "" {
				assert.Equal(t, "2026-07-28", c.ProtocolVersion())
				assert.Empty(t, reqs, "nothing after the probe")
				return
			}
			assert.Equal(t, tc.offered, c.ProtocolVersion())
			assert.Equal(t, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"`+tc.offered+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, string((<-reqs).body))
		})
	}
}

// Issue 21, 4: 2025-06-18 can be pinned: initialize offers it, and a server that answers
// another revision fails Connect.
func TestPinLegacy20250618(t *testing.T) {
	f, reqs := eraFake(t, "", "")
	c := connect(t, f.url(), Config{Era: EraLegacy20250618, ClientName: "t", ClientVersion: "1"})
	assert.False(t, c.Modern())
	assert.Equal(t, "2025-06-18", c.ProtocolVersion())
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, string((<-reqs).body))
	initialized := <-reqs
	assert.Equal(t, "2025-06-18", initialized.header("MCP-Protocol-Version"))

	f, _ = eraFake(t, "", "2025-11-25")
	_, err := Connect(context.Background(), f.url(), Config{Era: EraLegacy20250618})
	assert.EqualError(t, err, `client: initialize: the server chose protocol version "2025-11-25", not "2025-06-18" (Config.Era legacy-2025-06-18)`)
}

// Issue 21, 4: over stdio, an initialize-era server that answers the default era's probe
// without a handshake (a result without resultType) is not taken for a modern one.
func TestStdioDefaultEraLegacyServerAnswersProbe(t *testing.T) {
	tr, rs := newRawServer(t, stdioOptions{})
	done := make(chan *Client, 1)
	go func() {
		cfg, _ := Config{}.withDefaults()
		c, err := newClient(context.Background(), tr, cfg)
		assert.NoError(t, err)
		done <- c
	}()
	probe := []byte(rs.read(t))
	assert.Equal(t, "server/discover", decode.Lookup(probe, "method").String())
	rs.write(t, `{"jsonrpc":"2.0","id":`+string(decode.Lookup(probe, "id").Raw())+`,"result":{"tools":[]}}`)
	init := []byte(rs.read(t))
	assert.Equal(t, "initialize", decode.Lookup(init, "method").String())
	rs.write(t, legacyInitResult(string(decode.Lookup(init, "id").Raw()), "2025-11-25"))
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, rs.read(t))
	c := <-done
	require.NotNil(t, c)
	assert.False(t, c.Modern())
}

// A modern discover result may leave resultType out (SEP-2322: "complete" is assumed): its
// supportedVersions still make it a modern answer.
func TestAutoDiscoverWithoutResultType(t *testing.T) {
	f, reqs := eraFake(t, `{"jsonrpc":"2.0","id":%ID%,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}`, "")
	c := connect(t, f.url(), Config{})
	assert.True(t, c.Modern())
	<-reqs
	assert.Empty(t, reqs, "no initialize")
}
