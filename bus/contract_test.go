package bus_test

import (
	"strconv"
	"testing"

	"github.com/fastmcp-go/fastmcp/bus/bustest"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// TestContractMemory runs the contract on bustest's in-memory backend, whose buses are
// Relays: the shared part of every real bus, outages included.
func TestContractMemory(t *testing.T) {
	m := bustest.NewMemory()
	bustest.Run(t, bustest.Backend{
		Open: func(t *testing.T) fastmcp.EventBus {
			b := m.Open(0)
			t.Cleanup(b.Close)
			return b
		},
		Outage:   func(*testing.T) func() { return m.Outage() },
		Replicas: true,
	})
}

// serverBus is a Server's default bus, the in-memory hub, seen through the Server.
type serverBus struct{ s *fastmcp.Server }

func (b serverBus) Publish(e fastmcp.Event)                      { b.s.Publish(e) }
func (b serverBus) Subscribe(deliver func(fastmcp.Event)) func() { return b.s.Subscribe(deliver) }

// TestContractHub runs what applies of the contract to fastmcp's default bus, one Server's
// own: no replicas, no outages, no counts.
func TestContractHub(t *testing.T) {
	bustest.Run(t, bustest.Backend{
		Open: func(t *testing.T) fastmcp.EventBus {
			s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "hub", Version: "1"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(s.CloseSubscriptions)
			return serverBus{s}
		},
	})
}

// BenchmarkFanout: one event through the in-memory hub (the baseline of natsbus's and
// pgbus's benchmarks of the same name) and through bustest's in-memory Relay backend.
func BenchmarkFanout(b *testing.B) {
	for _, streams := range []int{1, 100} {
		b.Run("bus=hub/streams="+strconv.Itoa(streams), func(b *testing.B) {
			s, err := fastmcp.NewServer(fastmcp.Implementation{Name: "hub", Version: "1"}, nil)
			if err != nil {
				b.Fatal(err)
			}
			bustest.BenchmarkFanout(b, func(*testing.B) fastmcp.EventBus { return serverBus{s} }, streams)
		})
		b.Run("bus=relay/streams="+strconv.Itoa(streams), func(b *testing.B) {
			m := bustest.NewMemory()
			bustest.BenchmarkFanout(b, func(b *testing.B) fastmcp.EventBus {
				eb := m.Open(0)
				b.Cleanup(eb.Close)
				return eb
			}, streams)
		})
	}
}
