// Package natsbus is a [fastmcp.EventBus] over NATS (github.com/nats-io/nats.go): every
// replica publishes its events to one subject and subscribes to it, so each event reaches
// every replica's Server, the publisher's own included.
//
//	b, err := natsbus.Open(ctx, natsbus.Config{URL: "nats://127.0.0.1:4222"})
//	if err != nil { ... }
//	defer b.Close()
//	srv, err := fastmcp.NewServer(info, &fastmcp.Config{EventBus: b})
//
// fastmcp-bench serve takes it as --bus nats://HOST:PORT.
//
// # Delivery
//
// At most once, as package bus describes: core NATS, no JetStream. The events of one replica
// arrive in the order it published them (one goroutine publishes them on one connection, and
// NATS keeps a connection's order on a subject); those of different replicas interleave. An
// event is dropped (and counted in Stats().Dropped) when the outbound buffer is full, while
// the connection is down (nothing is buffered for a reconnect), or when its wire form is over
// the server's max_payload; the NATS client's report that it dropped incoming messages for a
// slow subscriber counts in Stats().Lost. Each is announced with [fastmcp.EventsLost], on
// which the Servers complete their open listen streams gracefully, so clients re-read.
//
// # Connection
//
// Open fails when the first connection cannot be made within ConnectTimeout. After that a
// broken connection is remade for as long as the Bus is open, ReconnectWait (100 ms) after the
// break, doubling per failed attempt up to MaxReconnectWait (5 s); the subscribers get
// EventsLost when it breaks and again when it is back (after a round trip that makes sure the
// server has the subscription again).
//
// # Limits
//
//   - Outbound buffer: Config.Buffer, bus.DefaultBuffer (4,096) events.
//   - Event size: as package bus bounds it (Data at most 1 MiB). NATS servers default to a
//     max_payload of 1 MiB, under the wire form of the largest event: set max_payload to
//     2 MiB (max_payload: 2MB in the server's configuration) to carry every event; with the
//     default, an event whose wire form is over 1 MiB is dropped and announced.
//   - Incoming: the NATS client's pending limits per subscription (512 Ki messages, 64 MiB).
package natsbus
