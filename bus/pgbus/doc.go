// Package pgbus is a [fastmcp.EventBus] over PostgreSQL LISTEN/NOTIFY (github.com/jackc/pgx/v5),
// for deployments that want no second component: it can share the pool of the Tasks store
// (tasks/pgstore). Every replica NOTIFYs its events on one channel and LISTENs on it, so each
// event reaches every replica's Server, the publisher's own included.
//
//	b, err := pgbus.Open(ctx, pgbus.Config{Pool: pool})
//	if err != nil { ... }
//	defer b.Close()
//	srv, err := fastmcp.NewServer(info, &fastmcp.Config{EventBus: b})
//
// fastmcp-bench serve takes it as --bus postgres://… ([Dial]).
//
// # Delivery
//
// At most once, as package bus describes. The events of one replica arrive in the order it
// published them (one goroutine sends them, each NOTIFY its own transaction, and PostgreSQL
// delivers notifications in commit order); those of different replicas interleave. An event
// whose NOTIFY payload would reach [MaxInlineBytes] (7,900; PostgreSQL refuses 8,000) is
// written to a row of Config.Table and the notification names the row, in one statement; the
// replicas read the row, and rows older than Retention (1 min) are deleted as later large
// events are sent, so a replica that reads one later counts it in Stats().Lost. Drops (buffer
// full, connection down, a NOTIFY that fails or passes SendTimeout) count in Stats().Dropped.
// Each is announced with [fastmcp.EventsLost], on which the Servers complete their open
// listen streams gracefully, so clients re-read.
//
// # Connection
//
// The bus LISTENs on a connection of its own, taken from the pool (and no longer the pool's).
// Open fails when it cannot LISTEN; after that, when the connection breaks (a restart, a
// failover, pg_terminate_backend) the subscribers get EventsLost, the bus LISTENs again on a
// new connection ReconnectWait (100 ms) later, doubling per failed attempt up to
// MaxReconnectWait (5 s), and the subscribers get EventsLost again once it listens.
//
// # Limits
//
//   - Outbound buffer: Config.Buffer, bus.DefaultBuffer (4,096) events.
//   - Event size: as package bus bounds it (Data at most 1 MiB); inline up to MaxInlineBytes
//     of base64, through a row past that.
//   - PostgreSQL's notification queue (8 GB by default) is shared by the whole server; a
//     listener that stops reading holds it, which is why the bus reads continuously.
package pgbus
