// Package bustest is the contract every [fastmcp.EventBus] passes: one suite, [Run], that the
// in-memory hub (fastmcp's default), bus/natsbus and bus/pgbus run in their tests, and
// [Memory], a bus shared in memory by several Servers, with outages on demand, for tests of
// what runs over a bus.
//
// The contract, beyond the comments of [fastmcp.EventBus]:
//   - every subscriber of every bus on the backend gets each event once, the publishing bus's
//     own subscribers included, with its four fields as they were published (Data binary-safe,
//     up to [fastmcp.MaxEventData] bytes);
//   - the events of one publishing goroutine arrive in the order it published them;
//   - after cancel returns, that subscriber is not called again;
//   - Publish never blocks: past the outbound buffer an event is dropped, counted (Stats), and
//     announced with [fastmcp.EventsLost], so no event is lost unannounced;
//   - when the backend goes away, every subscriber gets EventsLost, events published meanwhile
//     are dropped and counted, and when it comes back the subscribers get EventsLost again and
//     events flow as before.
//
// A bus that counts implements `Stats() bus.Stats`; the cases that read counts skip a bus
// that does not (the in-memory hub), as the outage cases skip a backend without outages.
//
// The suite never sleeps: it waits for events with a deadline, and for counters with
// require.Eventually.
//
//	func TestContract(t *testing.T) {
//		bustest.Run(t, bustest.Backend{
//			Open:     func(t *testing.T) fastmcp.EventBus { return openBus(t, server) },
//			Outage:   func(t *testing.T) func() { server.Stop(); return server.Start },
//			Replicas: true,
//		})
//	}
package bustest
