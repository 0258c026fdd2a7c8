package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// Defaults for the zero values of [Config]; they follow the seed system's client, but for
// the pool's size and request limit: with four connections a client shared by many callers
// spends most of its CPU waking and being woken (at 32 callers, 16 connections cost a quarter
// less CPU per call), and retiring a connection every 100 requests adds a dial and a close
// per 100 calls (1000 is nginx's keepalive_requests default).
const (
	DefaultPoolSize         = 16
	DefaultPoolIdleTimeout  = 30 * time.Second
	DefaultPoolMaxRequests  = 1000
	DefaultRequestTimeout   = 30 * time.Second
	DefaultMaxResponseBytes = 16 << 20
	DefaultMaxPages         = 1000
	DefaultMaxInputRounds   = 10
	DefaultListenBuffer     = 64
	DefaultLogBuffer        = 64
	DefaultLogLevel         = "info"
	DefaultMaxTotalTimeout  = 10 * time.Minute
)

// Era selects the protocol revision family a [Client] speaks.
type Era uint8

const (
	// EraAuto, the default, connects to a server of either era: Connect sends
	// server/discover, and settles on 2026-07-28 when the answer is a modern result
	// (resultType set) whose supportedVersions include it, or a modern error (-32020,
	// -32021, or a -32022 naming 2026-07-28). Any other answer (a JSON-RPC or HTTP error, a
	// result with neither resultType nor supportedVersions, supportedVersions without
	// 2026-07-28, no answer to the
	// stdio probe within DefaultProbeTimeout) falls back to the initialize handshake,
	// offering the newest initialize-era revision the server named in supportedVersions
	// (2025-11-25 when it named none). A server that cannot be reached, or that answers
	// neither, fails Connect.
	EraAuto Era = iota
	// EraModern pins 2026-07-28: Connect sends nothing, and the first request finds out
	// whether the server speaks it. As 2026-07-28 asks (SEP-2322), a result without
	// resultType is taken as complete: an initialize-era server that answers without a
	// handshake is then not told apart, which EraAuto does.
	EraModern
	// EraLegacy pins the initialize era, offering 2025-11-25; the server may answer with
	// 2025-06-18 or 2025-03-26, which the connection then speaks.
	EraLegacy
	// EraLegacy20250618 pins the initialize era at 2025-06-18: initialize offers it, and a
	// server answering another revision fails Connect.
	EraLegacy20250618
)

func (e Era) String() string {
	switch e {
	case EraAuto:
		return "auto"
	case EraModern:
		return "modern"
	case EraLegacy:
		return "legacy"
	case EraLegacy20250618:
		return "legacy-2025-06-18"
	}
	return fmt.Sprintf("Era(%d)", uint8(e))
}

// InputHandler answers one request for input from the server: an MRTR input request (modern)
// or a server-to-client request (legacy), given its params, returning its result object. An
// error is sent back as a JSON-RPC error (legacy) or ends the call (modern).
type InputHandler func(ctx context.Context, params json.RawMessage) (json.RawMessage, error)

// Config configures [Connect]. The zero value is usable: every zero field takes its default.
// Durations and counts must not be negative; Connect reports a negative one as an error.
type Config struct {
	// PoolSize caps the HTTP connections to the target's origin (default 16). A request that
	// finds all of them busy waits, up to its RequestTimeout, for one to return; waiters are
	// served in arrival order.
	PoolSize int
	// PoolIdleTimeout closes a pooled connection unused this long (default 30 s), by a timer
	// armed while connections are idle, or when the pool next takes it, whichever is first.
	PoolIdleTimeout time.Duration
	// PoolMaxRequests retires a connection after this many requests (default 1000).
	PoolMaxRequests int
	// RequestTimeout bounds one request, from waiting for a connection to the end of its
	// response (default 30 s). A context deadline that comes sooner wins.
	RequestTimeout time.Duration
	// ResetTimeoutOnProgress restarts RequestTimeout at each progress notification of a call
	// made WithProgress (the call that asks the server for progress), as the TypeScript
	// client's resetTimeoutOnProgress does; MaxTotalTimeout still bounds the call. Off by
	// default, as there: RequestTimeout stays a hard bound unless a caller opts in, so a
	// server that reports progress forever cannot hold a caller that did not ask for it.
	ResetTimeoutOnProgress bool
	// MaxTotalTimeout bounds a call whose timeout restarts on progress, however much progress
	// it reports (default 10 min): an error wrapping context.DeadlineExceeded. A call never
	// waits longer than this, even when RequestTimeout is longer.
	MaxTotalTimeout time.Duration
	// MaxResponseBytes bounds one response body or one event-stream message, checked while
	// reading (default 16 MiB): ErrResponseTooLarge.
	MaxResponseBytes int
	// MaxPages bounds the pages one List call follows (default 1,000): ErrTooManyPages.
	MaxPages int
	// MaxInputRounds bounds the MRTR retries of one call (default 10): ErrTooManyRounds.
	MaxInputRounds int
	// TaskAwaitTimeout bounds a TaskHandle.Await whose context has no deadline (default
	// 60 s, DefaultTaskAwaitTimeout): an error wrapping context.DeadlineExceeded.
	TaskAwaitTimeout time.Duration

	// ListenBuffer is how many notifications a Subscription holds for its reader (default 64);
	// when full, newer notifications are dropped and counted (Subscription.Dropped).
	ListenBuffer int

	// OnLog receives the notifications/message the server sends, on any stream and in both
	// eras: during a call or outside any (stdio, a legacy session's GET stream), but for the
	// ones a call made WithLog takes. It runs on a goroutine of its own, one message at a
	// time, in order; LogBuffer (default 64) messages wait for it, newer ones are dropped and
	// counted (Client.LogsDropped). A panic in it is logged and the next message delivered.
	// Client.Close waits for a running OnLog to return and drops the messages still waiting.
	// When set, modern requests ask for LogLevel.
	OnLog     func(LogMessage)
	LogBuffer int
	// LogLevel is the lowest level a modern request asks the server to log at
	// (io.modelcontextprotocol/logLevel; default "info"), sent only when OnLog is set, and
	// the level of a WithLog that names none. An initialize-era server logs at its own level.
	LogLevel string

	// Era selects how Connect settles the protocol revision: EraAuto (the default) talks
	// to the server to find its era; EraModern, EraLegacy and EraLegacy20250618 pin one.
	Era Era

	// Elicitation, Sampling and Roots answer elicitation/create, sampling/createMessage and
	// roots/list. Each non-nil handler is declared as a client capability.
	Elicitation InputHandler
	Sampling    InputHandler
	Roots       InputHandler

	// ClientName and ClientVersion are sent as clientInfo (default "fastmcp-client", "0").
	ClientName    string
	ClientVersion string

	// Command starts a stdio server instead of dialling a URL: Connect's target must then be
	// empty. Args, Env (appended to this process's environment) and Dir configure it.
	Command string
	Args    []string
	Env     []string
	Dir     string
	// Stderr also receives the stdio server's standard error, as it is written (nil: it is
	// only captured, its last 4 KiB explaining an exit). A slow Writer slows the server.
	Stderr io.Writer

	// Authorizer, when set, gives every HTTP request its credentials and answers the
	// server's 401 and 403 challenges (see Authorizer; package client/oauth has an OAuth 2.1
	// one). Nil sends none. It is not used over stdio.
	Authorizer Authorizer

	// Logger receives warnings (tools dropped for invalid annotations, dropped listen
	// notifications). Default: slog.Default().
	Logger *slog.Logger
}

// withDefaults validates c and fills its zero fields.
func (c Config) withDefaults() (Config, error) {
	ints := []struct {
		name string
		v    *int
		def  int
	}{
		{"PoolSize", &c.PoolSize, DefaultPoolSize},
		{"PoolMaxRequests", &c.PoolMaxRequests, DefaultPoolMaxRequests},
		{"MaxResponseBytes", &c.MaxResponseBytes, DefaultMaxResponseBytes},
		{"MaxPages", &c.MaxPages, DefaultMaxPages},
		{"MaxInputRounds", &c.MaxInputRounds, DefaultMaxInputRounds},
		{"ListenBuffer", &c.ListenBuffer, DefaultListenBuffer},
		{"LogBuffer", &c.LogBuffer, DefaultLogBuffer},
	}
	for _, f := range ints {
		if *f.v < 0 {
			return c, fmt.Errorf("client: %s must be a positive integer, got %d", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	durs := []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"PoolIdleTimeout", &c.PoolIdleTimeout, DefaultPoolIdleTimeout},
		{"RequestTimeout", &c.RequestTimeout, DefaultRequestTimeout},
		{"MaxTotalTimeout", &c.MaxTotalTimeout, DefaultMaxTotalTimeout},
		{"TaskAwaitTimeout", &c.TaskAwaitTimeout, DefaultTaskAwaitTimeout},
	}
	for _, f := range durs {
		if *f.v < 0 {
			return c, fmt.Errorf("client: %s must be positive, got %v", f.name, *f.v)
		}
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if c.Era > EraLegacy20250618 {
		return c, fmt.Errorf("client: unknown Era %d", c.Era)
	}
	if c.LogLevel == "" {
		c.LogLevel = DefaultLogLevel
	}
	if logLevelRank(c.LogLevel) < 0 {
		return c, fmt.Errorf("client: LogLevel %q is not a level (debug … emergency)", c.LogLevel)
	}
	if c.ClientName == "" {
		c.ClientName = "fastmcp-client"
	}
	if c.ClientVersion == "" {
		c.ClientVersion = "0"
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}
