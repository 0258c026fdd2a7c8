package client

import (
	"context"
	"errors"
	"fmt"
)

// Protocol revisions the client speaks.
const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
)

// legacyVersions are the initialize-era revisions a server may answer with.
var legacyVersions = map[string]bool{"2025-11-25": true, "2025-06-18": true, "2025-03-26": true}

// negotiate settles the era: nothing to send when pinned modern, the initialize handshake when
// pinned legacy, and for auto a server/discover probe whose answer decides.
func (c *Client) negotiate(ctx context.Context) error {
	switch c.cfg.Era {
	case EraModern:
		return nil
	case EraLegacy:
		return c.initialize(ctx)
	}
	res, err := c.request(ctx, "server/discover", nil, nil, nil)
	if err == nil {
		if _, derr := c.storeDiscover(res); derr == nil && text(res, "resultType") != "" {
			return nil
		}
	} else if modernError(err) {
		return fmt.Errorf("client: server/discover: %w", err)
	} else if ctx.Err() != nil {
		return err
	}
	return c.initialize(ctx)
}

// modernError reports whether err is an answer only a modern server gives: a header mismatch,
// a missing capability, or an unsupported version that names no initialize-era revision.
func modernError(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case CodeHeaderMismatch, CodeMissingCapability:
		return true
	case CodeUnsupportedVersion:
		return pickVersion(e.Data) != ""
	}
	return false
}

// initialize performs the initialize-era handshake, offering 2025-11-25, then sends
// notifications/initialized. The session id a server issues is kept by the transport.
func (c *Client) initialize(ctx context.Context) error {
	c.modern = false
	c.setVersion(legacyVersion)
	members := []byte(`"protocolVersion":"` + legacyVersion + `","capabilities":`)
	members = append(members, c.caps...)
	members = append(members, `,"clientInfo":`...)
	members = append(members, c.clientInfo()...)
	// The handshake itself carries no MCP-Protocol-Version: none is agreed yet.
	hdr := headers{}
	res, err := c.sendInit(ctx, members, &hdr)
	if err != nil {
		return fmt.Errorf("client: initialize: %w", err)
	}
	v := text(res, "protocolVersion")
	if !legacyVersions[v] {
		return fmt.Errorf("client: initialize: the server chose protocol version %q, which this client does not speak", v)
	}
	c.setVersion(v)
	if _, err := c.storeDiscover(res); err != nil {
		return err
	}
	if err := c.t.notify(ctx, appendNotification(nil, "notifications/initialized", nil), &headers{version: v}); err != nil {
		return err
	}
	c.startServerStream()
	return nil
}

// startServerStream opens the standalone GET stream of a sessionful legacy HTTP connection,
// where a server sends the requests it makes outside any call of ours (the configured
// handlers answer them by POST) and its unsolicited notifications. It runs until Close or
// until the server ends it; a later Listen opens another.
func (c *Client) startServerStream() {
	h, ok := c.t.(*httpTransport)
	if !ok || !h.sessionful() {
		return
	}
	c.events.mu.Lock()
	if c.events.stream == nil && c.events.ended == nil {
		c.events.startStream(c, h)
	}
	c.events.mu.Unlock()
}

// sendInit sends initialize with no version header.
func (c *Client) sendInit(ctx context.Context, members []byte, hdr *headers) ([]byte, error) {
	id := c.nextID.Add(1)
	req := appendRequest(nil, id, "initialize", members, nil, 0)
	raw, err := c.t.roundTrip(ctx, req, hdr, func(msg []byte) ([]byte, error) { return c.onMessage(ctx, msg, 0, nil) })
	if err != nil {
		return nil, c.rpcError(err, requestID(req))
	}
	r, err := c.parseResponse(raw, requestID(req))
	if err != nil {
		return nil, err
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.result, nil
}
