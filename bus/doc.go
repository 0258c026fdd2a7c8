// Package bus holds what the [fastmcp.EventBus] implementations across replicas share:
// [Relay] (the bounded outbound buffer, the fan-out to local subscribers, the accounting of
// drops and the [fastmcp.EventsLost] announcements), the events' wire form ([AppendEvent],
// [DecodeEvent]) and [Stats]. The buses are in subpackages: bus/natsbus over NATS, bus/pgbus
// over PostgreSQL LISTEN/NOTIFY; bus/bustest is the contract they pass.
//
// # Delivery
//
// At most once. Every subscriber of every replica gets each event once, the publishing
// replica's own included, and the events one replica publishes arrive in the order it
// published them (one goroutine sends them); events of different replicas interleave in no
// fixed order. An event may be lost — the outbound buffer was full, the connection was down,
// the backend refused it or dropped it for a slow subscriber — but never unannounced: the
// replicas whose subscribers may have missed it get EventsLost, on which a Server completes
// its open listen streams gracefully (resultType complete), and their clients re-read and
// listen again. Nothing is redelivered after an outage: the state lives in the catalog and
// the task store, which clients re-read.
//
// # Limits
//
//   - Outbound buffer: [DefaultBuffer] (4,096) events per replica; Publish never blocks, and
//     past the buffer the event is dropped, counted in Stats.Dropped and announced.
//   - Event size: Data at most [fastmcp.MaxEventData] (1 MiB), URI and Topic at most
//     [MaxNameBytes] (16 KiB) each; a larger event is dropped the same way.
//   - Wire form: version 1, kind, URI and Topic each after a uvarint length, then Data; a
//     replica refuses (and counts in Stats.Lost) any other version or malformed bytes.
package bus
