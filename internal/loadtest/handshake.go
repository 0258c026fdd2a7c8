package loadtest

import (
	"context"
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
	req.Header.Del(HeaderSession)
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
	if sid := c.resp.Header.Peek(HeaderSession); len(sid) > 0 {
		c.ep.t.Session = string(sid) // the rest of the handshake is in the session
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

// OpenSession performs the initialize-era handshake with t (initialize negotiating 2025-11-25,
// then notifications/initialized) and returns the Mcp-Session-Id the server issued, "" for a
// stateless server. Set it as Target.Session so that every connection's calls are in that
// one session, as a client's would be.
func OpenSession(ctx context.Context, t Target) (string, error) {
	t.Dialect, t.Session = DialectLegacy, ""
	ep, err := t.parse()
	if err != nil {
		return "", err
	}
	c, err := dialConn(ctx, ep, DefaultTimeout)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrTargetDown, err)
	}
	defer c.close()
	if err := c.handshake(time.Now()); err != nil {
		return "", fmt.Errorf("loadtest: %s: %w", t.label(), err)
	}
	return ep.t.Session, nil
}
