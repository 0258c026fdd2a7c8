package fastmcp

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fastmcp-go/fastmcp/decode"
	"github.com/fastmcp-go/fastmcp/internal/sealstate"
)

// Version is the protocol revision this package serves natively.
const Version = "2026-07-28"

// Implementation identifies the server: it is sent as
// result._meta["io.modelcontextprotocol/serverInfo"] on every result.
type Implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

// Icon is an icon a client may show for the server or a component.
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Server is the transport-free MCP core: it serves one decoded message at a time, and every
// transport is built on its side for transports (package fastmcp/transport; [Server.Dispatch]
// serves raw bytes). Register
// components before serving or while serving: catalog changes are atomic for requests in
// flight and are published to listen streams.
//
// It is safe to call Server methods from concurrently running goroutines.
type Server struct {
	info    Implementation
	cfg     Config
	decoder *decode.Decoder
	sealer  atomic.Pointer[sealstate.Sealer] // replaced by SetStateKeys
	bus     EventBus
	hub     *hub // fans events out to this server's listen streams; the bus when cfg.EventBus is nil
	// methodLabels are an Observer's label sets of each method (for tools/call and
	// prompts/get, those of a name the catalog does not have).
	methodLabels [len(methodLabels)]labelSets

	// serverMeta is `"_meta":{"io.modelcontextprotocol/serverInfo":{...}}`, appended to every
	// result.
	serverMeta []byte

	// The last clientInfo and clientCapabilities checked valid (see validMemo).
	clientInfos, clientCaps validMemo

	mu      sync.Mutex // serializes catalog writers
	catalog atomic.Pointer[catalog]
	ext     atomic.Pointer[extensionSet] // nil until AddExtension

	dialects      uint8  // bit d set when Dialect d is served
	supportedJSON []byte // the versions served, a JSON array, newest first
	// legacyInfo is the serverInfo of initialize, for 2025-11-25 and 2025-06-18.
	legacyInfo [2][]byte

	// outstanding holds the server-to-client requests awaiting the client's answer (see
	// Server.Answer).
	outstanding outstanding
	// answersOnBus subscribes deliverAnswer to a configured EventBus, once, before the first
	// server-to-client request goes out (see legacy_answer_bus.go).
	answersOnBus sync.Once

	now func() time.Time // test hook
}

// NewServer returns a Server that identifies itself as info. A nil cfg selects every
// default; an invalid one is an error wrapping [ErrInvalidConfig].
func NewServer(info Implementation, cfg *Config) (*Server, error) {
	var c Config
	if cfg != nil {
		c = *cfg
	}
	c, err := c.resolve()
	if err != nil {
		return nil, err
	}
	if info.Name == "" || info.Version == "" {
		return nil, fmt.Errorf("%w: Implementation needs a Name and a Version", ErrInvalidConfig)
	}
	s := &Server{info: info, cfg: c, now: time.Now}
	if s.decoder, err = decode.New(c.Limits); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	sealer, err := newSealer(c.StateKeys, c.StateTTL)
	if err != nil {
		return nil, err
	}
	s.sealer.Store(sealer)
	s.hub, s.bus = newHub(c.SubscriptionBuffer, c.MaxSubscriptionBytes, c.EventBus)
	s.serverMeta = appendServerMeta(nil, info)
	for _, d := range c.Dialects {
		s.dialects |= 1 << d
	}
	s.supportedJSON = appendSupported(nil, s.dialects)
	for _, d := range []Dialect{Legacy20251125, Legacy20250618} {
		s.legacyInfo[d-Legacy20251125] = appendLegacyInfo(nil, info, d)
	}
	s.catalog.Store(newCatalog(0))
	return s, nil
}

// Info returns the server's identity.
func (s *Server) Info() Implementation { return s.info }
