package bus

// Stats counts what a bus did since it opened, for metrics. Published+Dropped is the number
// of events given to Publish (and of EventsLost markers sent on this replica's behalf, which
// count in Published).
type Stats struct {
	// Published counts the events handed to the backend.
	Published uint64
	// Received counts the events that came back from the backend (every replica's, this
	// one's own included) and were delivered to the subscribers.
	Received uint64
	// Dropped counts the events that never reached the backend: the outbound buffer was
	// full, the event was over the bounds, the connection was down, or the backend refused
	// it. Each drop is announced with EventsLost (see Relay).
	Dropped uint64
	// Lost counts the events that came in but could not be delivered (malformed, another
	// wire version, a large event's body gone, or the backend reported that it dropped
	// messages for this subscriber).
	Lost uint64
	// Outages counts the times the connection to the backend broke.
	Outages uint64
	// Reconnects counts the times it came back.
	Reconnects uint64
}
