package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
)

// DefaultProbeTimeout is how long EraAuto over stdio waits for the answer to its
// server/discover probe before it takes the server for an initialize-era one: a legacy
// stdio server may ignore a method it does not know instead of answering it.
const DefaultProbeTimeout = 2 * time.Second

// legacyVersions are the initialize-era revisions the client accepts from a server.
var legacyVersions = []string{legacyVersion, "2025-06-18"}

// ErrVersionRejected: the server answered initialize with a revision the client does not
// speak.
var ErrVersionRejected = errors.New("client: server chose an unsupported protocol version")

// eraSettler is a transport that settles the era itself while it connects (stdio, where the
// handshake belongs to the process's one connection); the core reads the outcome instead of
// negotiating.
type eraSettler interface {
	negotiated() (modern bool, version string)
}

var _ eraSettler = (*stdioTransport)(nil)

func (t *stdioTransport) negotiated() (bool, string) { return t.modern, t.version }

// handshake settles the era over a new stdio connection: nothing to send when pinned
// modern; initialize when pinned legacy; with EraAuto, a server/discover probe first, and
// initialize when the answer is not a modern one or none comes within probeTimeout.
func (t *stdioTransport) handshake(ctx context.Context, cfg *Config, probeTimeout time.Duration) error {
	switch cfg.Era {
	case EraModern:
		t.modern, t.version = true, modernVersion
		return nil
	case EraAuto:
		ok, err := t.probe(ctx, cfg, probeTimeout)
		if err != nil {
			return err
		}
		if ok {
			t.modern, t.version = true, modernVersion
			return nil
		}
	}
	return t.initialize(ctx, cfg)
}

// probe sends server/discover with modern _meta; it reports whether the server listed
// 2026-07-28. A JSON-RPC error or silence until the probe timeout means "not modern"; only a
// transport failure (the server exited) or ctx ending is an error.
func (t *stdioTransport) probe(ctx context.Context, cfg *Config, timeout time.Duration) (bool, error) {
	pctx, cancel := context.WithTimeoutCause(ctx, timeout, errProbeTimeout)
	defer cancel()
	req := appendDiscoverProbe(nil, cfg)
	resp, err := t.conn.call(pctx, []byte(`"probe-1"`), req, refuseMessages)
	switch {
	case errors.Is(err, errProbeTimeout):
		return false, nil
	case err != nil:
		return false, err
	}
	res := decode.Lookup(resp, "result")
	if res.Type() != decode.TypeObject {
		return false, nil
	}
	modern := false
	decode.Elements(decode.Lookup(res.Raw(), "supportedVersions").Raw(), func(v []byte, _ decode.Type) bool {
		modern = string(v) == `"`+modernVersion+`"`
		return !modern
	})
	return modern, nil
}

var errProbeTimeout = errors.New("client: server/discover probe timed out")

// initialize performs the initialize handshake offering 2025-11-25, then sends
// notifications/initialized.
func (t *stdioTransport) initialize(ctx context.Context, cfg *Config) error {
	resp, err := t.conn.call(ctx, []byte(`"init-1"`), appendInitialize(nil, cfg), refuseMessages)
	if err != nil {
		return err
	}
	if e := decode.Lookup(resp, "error"); e.Present() {
		return fmt.Errorf("client: initialize refused: %s", e.Raw())
	}
	v := decode.Lookup(decode.Lookup(resp, "result").Raw(), "protocolVersion")
	if v.Type() != decode.TypeString || !slices.Contains(legacyVersions, v.String()) {
		return fmt.Errorf("%w: initialize answered %s", ErrVersionRejected, v.Raw())
	}
	t.modern, t.version = false, v.String()
	return t.conn.notify([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// refuseMessages answers what the server sends during the handshake: nothing is expected,
// so a request gets -32603 and a notification is dropped.
func refuseMessages(msg []byte) ([]byte, error) {
	id := decode.Lookup(msg, "id")
	if !id.Present() {
		return nil, nil
	}
	return decode.AppendError(nil, id.Raw(), codeInternalError, "Client is still connecting", nil, true), nil
}

func appendDiscoverProbe(b []byte, cfg *Config) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":"probe-1","method":"server/discover","params":{"_meta":{`...)
	b = append(b, `"io.modelcontextprotocol/protocolVersion":"`+modernVersion+`",`...)
	b = append(b, `"io.modelcontextprotocol/clientCapabilities":`...)
	b = appendCapabilities(b, cfg)
	b = append(b, `,"io.modelcontextprotocol/clientInfo":`...)
	b = appendClientInfo(b, cfg)
	return append(b, `}}}`...)
}

func appendInitialize(b []byte, cfg *Config) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":"init-1","method":"initialize","params":{"protocolVersion":"`+legacyVersion+`","capabilities":`...)
	b = appendCapabilities(b, cfg)
	b = append(b, `,"clientInfo":`...)
	b = appendClientInfo(b, cfg)
	return append(b, `}}`...)
}

// appendCapabilities declares the capabilities whose handlers are set.
func appendCapabilities(b []byte, cfg *Config) []byte {
	var caps [][]byte
	if cfg.Elicitation != nil {
		caps = append(caps, []byte(`"elicitation":{"form":{}}`))
	}
	if cfg.Roots != nil {
		caps = append(caps, []byte(`"roots":{}`))
	}
	if cfg.Sampling != nil {
		caps = append(caps, []byte(`"sampling":{}`))
	}
	b = append(b, '{')
	b = append(b, bytes.Join(caps, []byte{','})...)
	return append(b, '}')
}

func appendClientInfo(b []byte, cfg *Config) []byte {
	b = append(b, `{"name":`...)
	b = decode.AppendString(b, cfg.ClientName, true)
	b = append(b, `,"version":`...)
	b = decode.AppendString(b, cfg.ClientVersion, true)
	return append(b, '}')
}
