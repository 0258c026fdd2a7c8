package bustest

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Memory is a backend in memory that the buses it opens share, like Servers sharing a
// broker, with outages on demand (Outage). Its buses are [bus.Relay]s, so what they count
// and announce is what the real buses do.
type Memory struct {
	mu    sync.RWMutex
	buses []*MemoryBus
	down  bool
}

// MemoryBus is one replica's bus on a Memory backend.
type MemoryBus struct {
	*bus.Relay
	m      *Memory
	cancel context.CancelFunc
}

var errDown = errors.New("bustest: the backend is down")

// NewMemory returns an empty backend.
func NewMemory() *Memory { return &Memory{} }

// Open returns a new bus on m with an outbound buffer of buffer events (bus.DefaultBuffer
// when 0). Close it when done.
func (m *Memory) Open(buffer int) *MemoryBus {
	ctx, cancel := context.WithCancel(context.Background())
	b := &MemoryBus{Relay: bus.NewRelay(buffer), m: m, cancel: cancel}
	m.mu.Lock()
	m.buses = append(m.buses, b)
	if m.down {
		b.Disconnected()
	}
	m.mu.Unlock()
	go b.Run(ctx, m.send)
	return b
}

// Close stops the bus's sender and takes it off the backend.
func (b *MemoryBus) Close() {
	b.cancel()
	b.Wait()
	b.m.mu.Lock()
	defer b.m.mu.Unlock()
	for i, o := range b.m.buses {
		if o == b {
			b.m.buses = append(b.m.buses[:i], b.m.buses[i+1:]...)
			break
		}
	}
}

// send delivers one event to every bus on the backend, or fails while it is down.
func (m *Memory) send(_ context.Context, payload []byte) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.down {
		return errDown
	}
	own := bytes.Clone(payload) // the relay reuses payload; subscribers share this copy
	for _, b := range m.buses {
		b.Receive(own)
	}
	return nil
}

// Outage takes the backend down: every bus is told its connection broke. The function it
// returns brings the backend back, and tells every bus.
func (m *Memory) Outage() (restore func()) {
	m.mu.Lock()
	m.down = true
	buses := append([]*MemoryBus(nil), m.buses...)
	m.mu.Unlock()
	for _, b := range buses {
		b.Disconnected()
	}
	return func() {
		m.mu.Lock()
		m.down = false
		buses := append([]*MemoryBus(nil), m.buses...)
		m.mu.Unlock()
		for _, b := range buses {
			b.Reconnected()
		}
	}
}

var _ fastmcp.EventBus = (*MemoryBus)(nil)
