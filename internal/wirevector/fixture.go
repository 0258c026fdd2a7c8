package wirevector

import (
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Fixtures. Each vector file names one in its setup section; every file gets a server of its
// own. Fixtures use only package fastmcp's public API, so every transport serves the same
// servers.

// Fixture describes a server the vectors run against.
type Fixture struct {
	Info     fastmcp.Implementation
	Config   fastmcp.Config
	Register func(s *fastmcp.Server)
	// OnNotify, if set, is told of every notification a request produced (n counts them from
	// 1 within the request) as it arrives: by CoreSteps from the goroutine that serves the
	// request, by a transport's exchange from the one reading the transport's output. The
	// listen fixture uses it to change the catalog after the acknowledgement and to end the
	// stream.
	OnNotify func(s *fastmcp.Server, n int, msg []byte)
}

// vectorInfo is the identity of the fixture servers: every result carries it.
var vectorInfo = fastmcp.Implementation{Name: "vectors", Version: "1.0.0"}

var fixtures = map[string]func() *Fixture{
	"echo":          echoFixture,
	"echo_modern":   echoModernFixture,
	"legacy":        legacyFixture,
	"discover":      discoverFixture,
	"empty":         func() *Fixture { return &Fixture{Info: vectorInfo} },
	"mrtr":          mrtrFixture,
	"components":    componentsFixture,
	"pages":         pagesFixture,
	"listen":        listenFixture,
	"authz":         func() *Fixture { return authzFixture(false) },
	"authz_conceal": func() *Fixture { return authzFixture(true) },
	"faults":        faultsFixture,
	"numbers":       numbersFixture,
}

// NewFixtureServer builds the server of the named fixture, with its logs discarded.
func NewFixtureServer(t testing.TB, name string) (*fastmcp.Server, *Fixture) {
	t.Helper()
	mk, ok := fixtures[name]
	if !ok {
		t.Fatalf("unknown fixture %q", name)
	}
	fx := mk()
	cfg := fx.Config
	cfg.Logger = slog.New(slog.DiscardHandler)
	s, err := fastmcp.NewServer(fx.Info, &cfg)
	require.NoError(t, err)
	if fx.Register != nil {
		fx.Register(s)
	}
	t.Cleanup(s.CloseSubscriptions)
	return s, fx
}

func text(s string) (fastmcp.ToolResult, error) { return fastmcp.ToolResult{Text: s}, nil }

var objectSchema = json.RawMessage(`{"type":"object"}`)
