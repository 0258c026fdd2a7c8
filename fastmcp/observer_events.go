package fastmcp

// EventStats counts the events of a Server's listen streams, for metrics.
type EventStats struct {
	// Published counts the events delivered to this Server's streams (list_changed and
	// resources/updated, from Publish or the configured EventBus).
	Published uint64
	// Overflows counts the times a resources/updated found a stream's queue full
	// ([Config.SubscriptionBuffer]): the event was dropped and the stream ends with its
	// completion response, so that the client re-lists.
	Overflows uint64
	// Lost counts the EventsLost events the bus delivered: each completed every listen
	// stream then open, for its client to re-read (the bus dropped events or lost its
	// connection; its own statistics say how many).
	Lost uint64
}

// EventStats returns the counts of the events published to the listen streams.
func (s *Server) EventStats() EventStats {
	return EventStats{Published: s.hub.published.Load(), Overflows: s.hub.overflows.Load(), Lost: s.hub.lostEvents.Load()}
}

// countOverflow counts a stream's overflow.
func (h *hub) countOverflow(overflowed bool) {
	if overflowed {
		h.overflows.Add(1)
	}
}
