package fastmcp

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults for [Config].
const (
	// DefaultPageSize is the number of items per page of the list methods.
	DefaultPageSize = 100
	// DefaultStateTTL is how long a sealed requestState stays valid.
	DefaultStateTTL = 300 * time.Second
	// MaxStateTTL is the longest StateTTL accepted.
	MaxStateTTL = 900 * time.Second
	// DefaultSubscriptionBuffer bounds the resources/updated events queued for one listen
	// stream; list_changed events are coalesced and take no room.
	DefaultSubscriptionBuffer = 100
	// MaxCursorBytes is the longest pagination cursor accepted.
	MaxCursorBytes = 2048
	// MaxResourceSubscriptions bounds the URIs of one subscriptions/listen request.
	MaxResourceSubscriptions = 1000
	// DefaultMaxSubscriptionBytes bounds the memory all listen streams of a Server hold for
	// their subscriptions (see Config.MaxSubscriptionBytes): 64 MiB.
	DefaultMaxSubscriptionBytes = 64 << 20
	// MaxCompletionValues bounds the values of one completion/complete result.
	MaxCompletionValues = 100
	// DefaultLegacyLogLevel is the level of log messages initialize-era requests get over
	// stateless HTTP, where logging/setLevel cannot be remembered.
	DefaultLegacyLogLevel = "info"
	// DefaultMaxInputRounds bounds the server-to-client request rounds of one request.
	DefaultMaxInputRounds = 8
	// DefaultMaxOutstandingRequests bounds the server-to-client requests awaiting answers.
	DefaultMaxOutstandingRequests = 10_000
	// MinStateKeyBytes is the shortest requestState sealing key accepted.
	MinStateKeyBytes = 32
	// MaxStateKeys is the largest number of keys in Config.StateKeys or Server.SetStateKeys.
	MaxStateKeys = 8
)

// ErrInvalidConfig is wrapped by the error NewServer returns for an invalid [Config].
var ErrInvalidConfig = errors.New("fastmcp: invalid config")

// CacheScope says who may share a cached result.
type CacheScope string

const (
	// CachePrivate: the result is scoped to one authorization context (the default).
	CachePrivate CacheScope = "private"
	// CachePublic: the result may be shared across principals, for example by a gateway.
	CachePublic CacheScope = "public"
)

// CacheHint is the ttlMs and cacheScope a cacheable result carries. The zero value is
// {0, "private"}: immediately stale, not shared.
type CacheHint struct {
	TTL   time.Duration
	Scope CacheScope
}

func (h CacheHint) resolve() (CacheHint, error) {
	if h.TTL < 0 {
		return h, fmt.Errorf("%w: negative cache TTL %v", ErrInvalidConfig, h.TTL)
	}
	switch h.Scope {
	case "":
		h.Scope = CachePrivate
	case CachePrivate, CachePublic:
	default:
		return h, fmt.Errorf("%w: cache scope %q is not %q or %q", ErrInvalidConfig, h.Scope, CachePrivate, CachePublic)
	}
	return h, nil
}

// Config configures a [Server]. The zero value (or a nil *Config) selects every default.
// NewServer copies it; later changes have no effect.
type Config struct {
	// Instructions is the free text server/discover returns to help a model use the server.
	Instructions string

	// Cache hints for server/discover, the list methods and resources/read. Components may
	// override the hint of their own read. Zero means {ttlMs 0, "private"}.
	DiscoverCache, ToolsCache, PromptsCache, ResourcesCache CacheHint

	// PageSize is the number of items per page of the list methods. If zero,
	// [DefaultPageSize] is used. Negative values are invalid.
	PageSize int

	// StateKey seals multi round-trip requestState (AES-256-GCM under a key derived from it).
	// It must be at least [MinStateKeyBytes] long; share it between replicas that serve the
	// same clients. It is StateKeys with one key; set one of the two. If both are nil, a
	// random key is made per process, and a retry that reaches another process is refused
	// (-32602 "Invalid or expired request state").
	StateKey []byte
	// StateKeys are the requestState keys, for rotation: the first seals, every one opens.
	// Each must be at least [MinStateKeyBytes] long, all distinct, at most [MaxStateKeys].
	// [Server.SetStateKeys] replaces them while serving.
	StateKeys [][]byte
	// StateTTL bounds how long a requestState is valid. If zero, [DefaultStateTTL] is used;
	// at most [MaxStateTTL]. Negative values are invalid.
	StateTTL time.Duration

	// Authorizer, if set, decides per component and phase what a caller may see and invoke.
	Authorizer Authorizer
	// ConcealRefusals answers a refused invocation exactly like an unknown component.
	ConcealRefusals bool

	// EventBus carries list_changed and resources/updated events to listen streams. If nil,
	// an in-memory bus local to this Server is used.
	EventBus EventBus
	// SubscriptionBuffer bounds the resources/updated events queued per listen stream; on
	// overflow the stream ends with its completion response, so the client re-lists. If zero,
	// [DefaultSubscriptionBuffer] is used. Negative values are invalid.
	SubscriptionBuffer int
	// MaxSubscriptionBytes bounds the bytes all open listen streams hold for their
	// subscriptions, together: each stream 256 bytes plus the length of its request id, each
	// URI it lists 40 more, and each distinct URI listed by any stream its length plus an
	// eighth plus 128, once however many streams list it. A listen request that would pass it is answered
	// -32603 "Server subscription capacity exhausted" (HTTP 503) before its acknowledgement;
	// the bytes return when a stream ends. The request itself is not counted: transports
	// release it once the stream is acknowledged. If zero, [DefaultMaxSubscriptionBytes] is
	// used. Negative values are invalid.
	MaxSubscriptionBytes int64

	// Dialects lists the protocol revisions served; requests of another are refused naming
	// these (see package fastmcp/transport). If nil, [AllDialects]: every client can use the server.
	Dialects []Dialect
	// LegacyLogLevel is the level of the notifications/message an initialize-era request
	// gets where its transport keeps no level of logging/setLevel (stateless HTTP): a level
	// name ("debug" … "emergency"), or "off" for none. If empty, [DefaultLegacyLogLevel].
	LegacyLogLevel string
	legacyLogLevel LogLevel // LegacyLogLevel parsed
	// MaxInputRounds bounds the rounds of server-to-client requests one initialize-era
	// request may make (a handler returning InputRequired again after its answers); past it
	// the request is answered -32603 "Too many input rounds". If zero,
	// [DefaultMaxInputRounds]. Negative values are invalid.
	MaxInputRounds int
	// MaxOutstandingRequests bounds the server-to-client requests awaiting an answer, over
	// the whole server; a handler asking for more gets -32603 "Server input request capacity
	// exhausted". If zero, [DefaultMaxOutstandingRequests]. Negative values are invalid.
	MaxOutstandingRequests int

	// Limits bounds the messages Dispatch decodes (transports may decode themselves).
	Limits decode.Limits

	// Observer, if set, is told of every request's start and end (metrics, traces, access
	// logs; see package observe). If nil, requests are not observed and cost nothing more.
	Observer Observer

	// Logger receives handler panics with their stacks, and refusals worth a look. If nil,
	// slog.Default() is used. Nothing logged reaches the wire.
	Logger *slog.Logger
}

// resolve validates c and fills in defaults.
func (c Config) resolve() (Config, error) {
	var err error
	for _, h := range []*CacheHint{&c.DiscoverCache, &c.ToolsCache, &c.PromptsCache, &c.ResourcesCache} {
		if *h, err = h.resolve(); err != nil {
			return c, err
		}
	}
	if err := defaults.Resolve(&c.PageSize, DefaultPageSize, "PageSize", ErrInvalidConfig); err != nil {
		return c, err
	}
	switch {
	case c.StateTTL < 0 || c.StateTTL > MaxStateTTL:
		return c, fmt.Errorf("%w: StateTTL %v is outside (0, %v]", ErrInvalidConfig, c.StateTTL, MaxStateTTL)
	case c.StateTTL == 0:
		c.StateTTL = DefaultStateTTL
	}
	if c.StateKey != nil {
		if c.StateKeys != nil {
			return c, fmt.Errorf("%w: set StateKey or StateKeys, not both", ErrInvalidConfig)
		}
		c.StateKeys = [][]byte{c.StateKey}
	}
	if c.StateKeys != nil {
		if err := checkStateKeys(c.StateKeys); err != nil {
			return c, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
		}
	}
	if err := cmp.Or(
		defaults.Resolve(&c.SubscriptionBuffer, DefaultSubscriptionBuffer, "SubscriptionBuffer", ErrInvalidConfig),
		defaults.Resolve(&c.MaxSubscriptionBytes, DefaultMaxSubscriptionBytes, "MaxSubscriptionBytes", ErrInvalidConfig),
	); err != nil {
		return c, err
	}
	if c.Authorizer != nil && (c.ToolsCache.Scope == CachePublic || c.PromptsCache.Scope == CachePublic || c.ResourcesCache.Scope == CachePublic) {
		return c, fmt.Errorf("%w: with an Authorizer the list caches must be private", ErrInvalidConfig)
	}
	if c.Dialects == nil {
		c.Dialects = AllDialects()
	}
	if len(c.Dialects) == 0 {
		return c, fmt.Errorf("%w: Dialects is empty", ErrInvalidConfig)
	}
	for _, d := range c.Dialects {
		if d.Version() == "" {
			return c, fmt.Errorf("%w: unknown Dialect %d", ErrInvalidConfig, d)
		}
	}
	if c.LegacyLogLevel == "" {
		c.LegacyLogLevel = DefaultLegacyLogLevel
	}
	if c.legacyLogLevel = logLevelNamed(c.LegacyLogLevel); c.legacyLogLevel == logInvalid {
		return c, fmt.Errorf("%w: LegacyLogLevel %q is not a level name or \"off\"", ErrInvalidConfig, c.LegacyLogLevel)
	}
	if err := cmp.Or(
		defaults.Resolve(&c.MaxInputRounds, DefaultMaxInputRounds, "MaxInputRounds", ErrInvalidConfig),
		defaults.Resolve(&c.MaxOutstandingRequests, DefaultMaxOutstandingRequests, "MaxOutstandingRequests", ErrInvalidConfig),
	); err != nil {
		return c, err
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c, nil
}
