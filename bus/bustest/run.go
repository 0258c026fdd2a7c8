package bustest

import (
	"testing"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Backend is what a bus under test runs on.
type Backend struct {
	// Open returns a new bus on the backend, closed when t ends. Each call is another
	// replica; the buses one test opens share the backend.
	Open func(t *testing.T) fastmcp.EventBus
	// Outage, if set, makes the backend unreachable to every bus open on it and returns the
	// function that brings it back. Nil skips the outage cases.
	Outage func(t *testing.T) (restore func())
	// Replicas reports whether the buses of two Open calls share events (false for the
	// in-memory hub, one Server's own).
	Replicas bool
}

// counting is a bus that keeps Stats.
type counting interface{ Stats() bus.Stats }

type contractCase struct {
	name string
	run  func(t *testing.T, b Backend)
}

var cases = []contractCase{
	{"DeliversToEverySubscriber", deliversToEverySubscriber},
	{"FieldsRoundTrip", fieldsRoundTrip},
	{"ConcurrentPublishersInOrder", concurrentPublishers},
	{"CancelStopsDelivery", cancelStopsDelivery},
	{"PublishNeverBlocks", publishNeverBlocks},
	{"OversizedDroppedAndAnnounced", oversized},
	{"Outage", outage},
}

// Run runs the contract against b, each case on fresh buses.
func Run(t *testing.T, b Backend) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, b) })
	}
}
