package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"sync/atomic"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Client is a connection to one MCP server. It is safe for concurrent use; Close it when
// done.
type Client struct {
	cfg Config
	t   transport

	nextID atomic.Int64

	dec *decode.Decoder

	// modern is the era the connection settled on (set before Connect returns).
	modern bool
	// version is the revision sent; metaPrefix the modern _meta for it without its closing
	// brace (nil on a legacy connection). Both change together, on a -32022 retry.
	version    atomic.Pointer[string]
	metaPrefix atomic.Pointer[[]byte]
	caps       []byte
	// taskMetaPrefix is metaPrefix declaring the tasks extension as well, for the requests
	// that opt in (tasks*.go); it changes with metaPrefix.
	taskMetaPrefix atomic.Pointer[[]byte]
	// callMeta is the _meta of calls with capabilities or a log level of their own
	// (call_meta.go).
	callMeta callMeta

	tools toolHeaders
	disc  discoverCache

	// logs runs Config.OnLog (nil without one).
	logs *logQueue
	// progress routes notifications/progress to the calls made WithProgress, by token.
	progress progressCalls
	// session follows a legacy HTTP session across the server forgetting it (session.go).
	session sessionState
	// events routes the unsolicited notifications of an initialize-era connection to its
	// subscriptions and keeps the legacy HTTP GET stream (listen_legacy*.go).
	events legacyEvents

	closeOnce sync.Once
	closed    atomic.Bool
}

// startStdio starts the stdio transport for cfg.Command. The stdio file sets it, so this file
// does not depend on os/exec.
var startStdio func(ctx context.Context, cfg *Config) (transport, error)

// Connect connects to the MCP server at target, an http:// or https:// URL of its endpoint.
// To start a server over stdio instead, leave target empty and set cfg.Command.
//
// With Era EraAuto (the default) Connect asks the server with server/discover and falls
// back to the initialize handshake (see [EraAuto]): it fails when the server cannot be
// reached or answers neither. EraModern sends nothing; EraLegacy and EraLegacy20250618
// perform the handshake. Invalid configuration is an error.
func Connect(ctx context.Context, target string, cfg Config) (*Client, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	var t transport
	switch {
	case cfg.Command != "" && target != "":
		return nil, errors.New("client: set either a target URL or Config.Command, not both")
	case cfg.Command != "":
		if startStdio == nil {
			return nil, fmt.Errorf("client: stdio transport: %w", ErrNotImplemented)
		}
		t, err = startStdio(ctx, &cfg)
	default:
		u, perr := url.Parse(target)
		if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("client: target %q is not an http(s) URL", target)
		}
		t, err = newHTTPTransport(u, &cfg)
	}
	if err != nil {
		return nil, err
	}
	return newClient(ctx, t, cfg)
}

// newClient settles the era over t and returns the Client; it closes t on failure. The
// in-process link (linked.go) and the transports' tests build clients through it.
func newClient(ctx context.Context, t transport, cfg Config) (*Client, error) {
	dec, err := decode.New(decode.Limits{MaxMessageBytes: cfg.MaxResponseBytes})
	if err != nil {
		_ = t.close()
		return nil, err
	}
	c := &Client{cfg: cfg, t: t, dec: dec, modern: cfg.Era == EraAuto || cfg.Era == EraModern, caps: capabilities(&cfg)}
	c.session.mu = make(chanMutex, 1)
	if cfg.OnLog != nil {
		c.logs = newLogQueue(cfg.OnLog, cfg.LogBuffer, func(r any) {
			cfg.Logger.Error("client: Config.OnLog panicked", "panic", r)
		})
	}
	c.events.init()
	if st, ok := t.(*stdioTransport); ok {
		st.conn.setUnasked(c.unsolicited)
	}
	c.setVersion(modernVersion)
	if err := c.negotiate(ctx); err != nil {
		_ = t.close()
		c.logs.close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection: idle HTTP connections close at once, in-flight requests finish
// on their own. A legacy HTTP session is ended with DELETE first (bounded by 2 s, or
// RequestTimeout when shorter; the answer is not awaited further and its failure ignored).
// Close is idempotent.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.events.closeAll(ErrClosed)
		c.events.stopStream()
		if h := c.sessionTransport(); h != nil {
			h.endSession(c.currentVersion(), min(sessionDeleteTimeout, c.cfg.RequestTimeout))
		}
		err = c.t.close()
		c.logs.close()
	})
	return err
}

// Stats reports the HTTP pool's counters (zero for other transports).
func (c *Client) Stats() PoolStats {
	if h, ok := c.t.(*httpTransport); ok {
		return h.pool.stats()
	}
	return PoolStats{}
}

// Modern reports whether the connection speaks 2026-07-28 (false: the initialize era).
func (c *Client) Modern() bool { return c.modern }

// ProtocolVersion is the revision the connection uses.
func (c *Client) ProtocolVersion() string { return c.currentVersion() }

func (c *Client) currentVersion() string { return *c.version.Load() }

// setVersion switches the revision and rebuilds the modern _meta for it, with and without
// the tasks extension.
func (c *Client) setVersion(v string) {
	c.version.Store(&v)
	var meta, taskMeta []byte
	if c.modern {
		meta = c.appendMeta(nil, v, c.caps, c.hookLevel())
		taskMeta = c.appendMeta(nil, v, withTasksExtension(c.caps), c.hookLevel())
	}
	c.metaPrefix.Store(&meta)
	c.taskMetaPrefix.Store(&taskMeta)
}

// appendMeta appends the modern _meta for revision v declaring caps and asking for log
// messages at logLevel ("": none), without its closing brace.
func (c *Client) appendMeta(meta []byte, v string, caps []byte, logLevel string) []byte {
	meta = append(meta, `{"io.modelcontextprotocol/protocolVersion":`...)
	meta = decode.AppendString(meta, v, false)
	meta = append(meta, `,"io.modelcontextprotocol/clientCapabilities":`...)
	meta = append(meta, caps...)
	meta = append(meta, `,"io.modelcontextprotocol/clientInfo":`...)
	meta = append(meta, c.clientInfo()...)
	if logLevel != "" {
		meta = append(meta, `,"io.modelcontextprotocol/logLevel":`...)
		meta = decode.AppendString(meta, logLevel, false)
	}
	return meta
}

// hookLevel is the log level every modern request asks for: Config.LogLevel when OnLog is
// set, else none.
func (c *Client) hookLevel() string {
	if c.cfg.OnLog != nil {
		return c.cfg.LogLevel
	}
	return ""
}

func (c *Client) meta() []byte { return *c.metaPrefix.Load() }

// taskMeta is meta declaring the tasks extension too (nil on a legacy connection).
func (c *Client) taskMeta() []byte { return *c.taskMetaPrefix.Load() }

func (c *Client) clientInfo() []byte {
	b := []byte(`{"name":`)
	b = decode.AppendString(b, c.cfg.ClientName, false)
	b = append(b, `,"version":`...)
	b = decode.AppendString(b, c.cfg.ClientVersion, false)
	return append(b, '}')
}

// capabilities declares one client capability per configured input handler.
func capabilities(cfg *Config) []byte {
	b := []byte{'{'}
	add := func(s string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, s...)
	}
	if cfg.Elicitation != nil {
		add(`"elicitation":{"form":{}}`)
	}
	if cfg.Sampling != nil {
		add(`"sampling":{}`)
	}
	if cfg.Roots != nil {
		add(`"roots":{}`)
	}
	return append(b, '}')
}
