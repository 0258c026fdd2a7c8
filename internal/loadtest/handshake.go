package loadtest

import (
	"fmt"
	"time"

	"github.com/valyala/fasthttp"
)

// The initialize-era handshake Check performs before its first legacy call, as a client of
// that era does. Stateless servers keep nothing from it, so the load's calls do not repeat it.
const (
	initializeBody  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + LegacyVersion + `","capabilities":{},"clientInfo":{"name":"fastmcp-bench","version":"devel"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// handshake sends initialize without MCP-Protocol-Version (a client sends the header only once
// it has negotiated a version) and requires the version the calls will carry in return, then
// sends notifications/initialized with the header and requires 202.
func (c *conn) handshake(now time.Time) error {
	var req fasthttp.Request
	c.ep.setHeaders(&req, "initialize", "")
	req.Header.Del(HeaderProtocolVersion)
	req.SetBodyString(initializeBody)
	if kind, _ := c.exchange(now, &req); kind != "" {
		return fmt.Errorf("initialize: %s", kind)
	}
	if sc := c.resp.StatusCode(); sc != fasthttp.StatusOK {
		return fmt.Errorf("initialize: status %d: %.200s", sc, c.resp.Body())
	}
	body, kind := c.replyBody()
	if kind == "" {
		kind = checkResponse(body, []byte("0"), nil)
	}
	if kind != "" {
		return fmt.Errorf("initialize: %s: %.200s", kind, c.resp.Body())
	}
	r, _ := parseReply(body)
	if v := member(r.result, "protocolVersion"); string(v) != `"`+LegacyVersion+`"` {
		return fmt.Errorf("initialize negotiated %s, not %s", v, LegacyVersion)
	}
	c.ep.setHeaders(&req, "notifications/initialized", "")
	req.SetBodyString(initializedBody)
	if kind, _ := c.exchange(now, &req); kind != "" {
		return fmt.Errorf("notifications/initialized: %s", kind)
	}
	if sc := c.resp.StatusCode(); sc != fasthttp.StatusAccepted {
		return fmt.Errorf("notifications/initialized: status %d, want 202", sc)
	}
	return nil
}

// checkResponse is checkResponseAt without the offset.
func checkResponse(body, id, text []byte) string {
	kind, _ := checkResponseAt(body, id, text)
	return kind
}
