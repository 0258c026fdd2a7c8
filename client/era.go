package client

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Protocol revisions the client speaks.
const (
	modernVersion = "2026-07-28"
	legacyVersion = "2025-11-25"
)

// legacyVersions are the initialize-era revisions a server may answer with, newest first.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// negotiate settles the era: nothing to send when pinned modern, the initialize handshake when
// pinned legacy, and for auto a server/discover probe whose answer decides.
func (c *Client) negotiate(ctx context.Context) error {
	switch c.cfg.Era {
	case EraModern:
		return nil
	case EraLegacy:
		return c.initialize(ctx, legacyVersion, false)
	case EraLegacy20250618:
		return c.initialize(ctx, "2025-06-18", true)
	}
	res, err := c.send(ctx, "server/discover", nil, nil, nil)
	if err != nil {
		switch {
		case modernError(err), ctx.Err() != nil, !answered(err):
			// A modern server's refusal, or nothing answered: no handshake would get further.
			return &opError{"server/discover", err}
		}
		var e *Error
		if errors.As(err, &e) && e.Code == CodeUnsupportedVersion {
			// A -32022 naming only initialize-era revisions (a modern one would have been
			// retried): initialize at the newest of them this client speaks.
			if v := newestLegacy(supportedOf(e.Data)); v != "" {
				return c.initialize(ctx, v, false)
			}
		}
		return c.initialize(ctx, legacyVersion, false)
	}
	if !decode.Lookup(res, "resultType").Present() && !decode.Lookup(res, "supportedVersions").Present() {
		// An initialize-era server that answers without a handshake: not a modern one. (A
		// modern result may leave resultType out, meaning "complete" (SEP-2322), but a
		// discover result names its supportedVersions.)
		return c.initialize(ctx, legacyVersion, false)
	}
	d, err := c.storeDiscover(res)
	if err != nil {
		return c.initialize(ctx, legacyVersion, false)
	}
	if len(d.SupportedVersions) == 0 || slices.Contains(d.SupportedVersions, modernVersion) {
		return nil
	}
	// A server that answers discover but does not speak 2026-07-28 (go-sdk's sessionful
	// handler): initialize at the newest revision both sides speak.
	if v := newestLegacy(d.SupportedVersions); v != "" {
		return c.initialize(ctx, v, false)
	}
	return fmt.Errorf("client: server/discover: the server supports protocol versions %q, none of which this client speaks (%s, %q)",
		d.SupportedVersions, modernVersion, legacyVersions)
}

// newestLegacy is the newest initialize-era revision of versions this client speaks ("":
// none).
func newestLegacy(versions []string) string {
	for _, v := range legacyVersions {
		if slices.Contains(versions, v) {
			return v
		}
	}
	return ""
}

// answered reports whether err is an answer from the server, as opposed to no answer at all
// (a connection refused, reset or timed out): a JSON-RPC error, a non-2xx HTTP response, a
// reply that is not a JSON-RPC response, or silence past the stdio probe's timeout (which
// an initialize-era stdio server may keep for a method it does not know).
func answered(err error) bool {
	var e *Error
	var he *HTTPError
	return errors.As(err, &e) || errors.As(err, &he) || errors.Is(err, ErrMalformed) || errors.Is(err, errProbeTimeout)
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

// initialize switches the connection to the initialize era and performs the handshake,
// offering revision offer (exact: the server must accept it).
func (c *Client) initialize(ctx context.Context, offer string, exact bool) error {
	c.modern = false
	c.setVersion(offer)
	return c.handshake(ctx, offer, exact)
}

// handshake sends initialize offering revision offer, then notifications/initialized, and
// opens a session's GET stream. The session id a server issues is kept by the transport.
// With exact set, a server answering another revision is an error.
func (c *Client) handshake(ctx context.Context, offer string, exact bool) error {
	members := []byte(`"protocolVersion":"` + offer + `","capabilities":`)
	members = append(members, c.caps...)
	members = append(members, `,"clientInfo":`...)
	members = append(members, c.clientInfo()...)
	// The handshake itself carries no MCP-Protocol-Version: none is agreed yet.
	hdr := headers{}
	res, err := c.sendInit(ctx, members, &hdr)
	if err != nil {
		return &opError{"initialize", err}
	}
	v := text(res, "protocolVersion")
	if !slices.Contains(legacyVersions, v) {
		return fmt.Errorf("client: initialize: the server chose protocol version %q, which this client does not speak", v)
	}
	if exact && v != offer {
		return fmt.Errorf("client: initialize: the server chose protocol version %q, not %q (Config.Era %v)", v, offer, c.cfg.Era)
	}
	c.setVersion(v)
	if _, err := c.storeDiscover(res); err != nil {
		return err
	}
	if err := c.t.notify(ctx, appendNotification(nil, "notifications/initialized", nil), &headers{version: v}); err != nil {
		return err
	}
	c.startServerStream(ctx)
	return nil
}

// startServerStream opens the standalone GET stream of a sessionful legacy HTTP connection,
// where a server sends the requests it makes outside any call of ours (the configured
// handlers answer them by POST) and its unsolicited notifications. It runs until Close or
// until the server ends it; a later Listen opens another. It waits for the stream's head
// (bounded by RequestTimeout, or ctx) so that the server has the stream before the first
// request after Connect: a server that answered a request on whichever stream it saw first
// would otherwise depend on which of the two arrived first. A refused or unanswered stream
// does not fail the handshake; Listen reports it.
func (c *Client) startServerStream(ctx context.Context) {
	h, ok := c.t.(*httpTransport)
	if !ok || !h.sessionful() {
		return
	}
	c.events.mu.Lock()
	ls := c.events.stream
	if ls == nil && c.events.ended == nil {
		ls = c.events.startStream(c, h)
	}
	c.events.mu.Unlock()
	if ls == nil {
		return
	}
	select {
	case <-ls.opened:
	case <-ctx.Done():
	}
}

// sendInit sends initialize with no version header.
func (c *Client) sendInit(ctx context.Context, members []byte, hdr *headers) ([]byte, error) {
	id := c.nextID.Add(1)
	req := appendRequest(nil, id, "initialize", members, nil, 0)
	raw, err := c.t.roundTrip(ctx, req, hdr, func(msg []byte) ([]byte, error) { return c.onMessage(ctx, msg, nil) })
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
