package pgbus

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fastmcp-go/fastmcp/bus"
	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// Defaults of Config.
const (
	DefaultChannel          = "fastmcp_events"
	DefaultTable            = "fastmcp_bus_events"
	DefaultRetention        = time.Minute
	DefaultReconnectWait    = 100 * time.Millisecond
	DefaultMaxReconnectWait = 5 * time.Second
	DefaultSendTimeout      = 5 * time.Second
)

// MaxInlineBytes bounds the NOTIFY payload this package sends: PostgreSQL refuses one of 8,000
// bytes or more. An event whose payload would be longer goes through a row of Config.Table.
const MaxInlineBytes = 7900

// Config configures a Bus. Zero values mean the defaults.
type Config struct {
	// Pool the bus sends on and reads large events with, and from which it takes one
	// connection of its own to LISTEN on. Required; it may be the pool of the Tasks store.
	// The Bus does not close it.
	Pool *pgxpool.Pool
	// Channel all the replicas NOTIFY and LISTEN on: DefaultChannel ("fastmcp_events"). A
	// lower-case SQL identifier of at most 63 bytes.
	Channel string
	// Table keeps the events too large for a NOTIFY payload for Retention (DefaultTable,
	// "fastmcp_bus_events"; a lower-case SQL identifier). Open creates it if missing.
	Table string
	// Retention is how long a large event's row is kept for the replicas to read
	// (DefaultRetention, 1 min); older rows are deleted as new large events are sent.
	Retention time.Duration
	// Buffer bounds the outbound buffer, in events: bus.DefaultBuffer (4,096).
	Buffer int
	// ReconnectWait is the first wait before listening again after the connection breaks
	// (DefaultReconnectWait, 100 ms); each failed attempt doubles it, up to
	// MaxReconnectWait (DefaultMaxReconnectWait, 5 s). Attempts never stop.
	ReconnectWait, MaxReconnectWait time.Duration
	// SendTimeout bounds one NOTIFY (DefaultSendTimeout, 5 s); past it the event is dropped.
	SendTimeout time.Duration
}

// ErrConfig is the error of Open for an invalid Config.
var ErrConfig = errors.New("pgbus: invalid config")

var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Bus is a fastmcp.EventBus over PostgreSQL LISTEN/NOTIFY. Safe for concurrent use.
type Bus struct {
	*bus.Relay
	cfg       Config
	cancel    context.CancelFunc
	listening chan struct{} // closed when the listener returns
	closePool func()        // Dial's own pool, or nil
}

var _ fastmcp.EventBus = (*Bus)(nil)

// Open creates the table of large events if missing, LISTENs on the channel, and returns
// once events flow; it fails if that cannot be done (ctx bounds it). After that a broken
// connection is remade for as long as the Bus is open. Close it when done.
func Open(ctx context.Context, cfg Config) (*Bus, error) {
	if cfg.Pool == nil {
		return nil, fmt.Errorf("%w: Pool is required", ErrConfig)
	}
	cfg.Channel = cmp.Or(cfg.Channel, DefaultChannel)
	cfg.Table = cmp.Or(cfg.Table, DefaultTable)
	if !identifier.MatchString(cfg.Channel) || !identifier.MatchString(cfg.Table) {
		return nil, fmt.Errorf("%w: Channel and Table must be lower-case SQL identifiers", ErrConfig)
	}
	if cfg.Buffer < 0 || cfg.Retention < 0 || cfg.ReconnectWait < 0 || cfg.MaxReconnectWait < 0 || cfg.SendTimeout < 0 {
		return nil, fmt.Errorf("%w: negative Buffer, Retention or wait", ErrConfig)
	}
	cfg.Retention = cmp.Or(cfg.Retention, DefaultRetention)
	cfg.ReconnectWait = cmp.Or(cfg.ReconnectWait, DefaultReconnectWait)
	cfg.MaxReconnectWait = cmp.Or(cfg.MaxReconnectWait, DefaultMaxReconnectWait)
	cfg.SendTimeout = cmp.Or(cfg.SendTimeout, DefaultSendTimeout)

	if err := createTable(ctx, cfg.Pool, cfg.Table); err != nil {
		return nil, fmt.Errorf("pgbus: create %s: %w", cfg.Table, err)
	}
	conn, err := listen(ctx, cfg.Pool, cfg.Channel)
	if err != nil {
		return nil, fmt.Errorf("pgbus: listen %s: %w", cfg.Channel, err)
	}
	b := &Bus{Relay: bus.NewRelay(cfg.Buffer), cfg: cfg, listening: make(chan struct{})}
	runCtx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	go b.listenLoop(runCtx, conn)
	go b.Run(runCtx, (&sender{cfg: cfg}).send)
	return b, nil
}

// Dial opens a pool of its own on dsn (a PostgreSQL URL or key=value string) and the Bus on
// it, for a program given a DSN (fastmcp-bench serve --bus postgres://…); Close closes the
// pool too.
func Dial(ctx context.Context, dsn string, cfg Config) (*Bus, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("pgbus: %w", err)
	}
	cfg.Pool = pool
	b, err := Open(ctx, cfg)
	if err != nil {
		pool.Close()
		return nil, err
	}
	b.closePool = pool.Close
	return b, nil
}

// Close stops the listener and the sender (what is still queued is dropped) and returns
// their connections; a pool of Dial's is closed too.
func (b *Bus) Close() error {
	b.cancel()
	b.Wait()
	<-b.listening
	if b.closePool != nil {
		b.closePool()
	}
	return nil
}

// createTable makes the table of large events, one replica at a time.
func createTable(ctx context.Context, pool *pgxpool.Pool, table string) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('fastmcp pgbus'))`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+table+` (
			id bigserial PRIMARY KEY,
			at timestamptz NOT NULL DEFAULT now(),
			body bytea NOT NULL)`)
		return err
	})
}

// listen takes a connection of its own from pool and LISTENs on channel with it.
func listen(ctx context.Context, pool *pgxpool.Pool, channel string) (*pgx.Conn, error) {
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	conn := pc.Hijack() // ours until closed: the pool never hands it out again
	if _, err := conn.Exec(ctx, `LISTEN `+channel); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// listenLoop delivers the notifications of conn until ctx is done; when the connection
// breaks it tells the relay and listens again, with backoff, until it can.
func (b *Bus) listenLoop(ctx context.Context, conn *pgx.Conn) {
	defer close(b.listening)
	wait := b.cfg.ReconnectWait
	for {
		for conn != nil {
			n, err := conn.WaitForNotification(ctx)
			if err != nil {
				_ = conn.Close(context.Background())
				conn = nil
				break
			}
			b.receive(ctx, n.Payload)
		}
		if ctx.Err() != nil {
			return
		}
		b.Disconnected()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		c, err := listen(ctx, b.cfg.Pool, b.cfg.Channel)
		if err != nil {
			wait = min(2*wait, b.cfg.MaxReconnectWait)
			continue
		}
		conn, wait = c, b.cfg.ReconnectWait
		b.Reconnected()
	}
}

// receive delivers one notification: an inline event, or the row of a large one.
func (b *Bus) receive(ctx context.Context, payload string) {
	if len(payload) == 0 {
		b.ReceiveLost()
		return
	}
	switch payload[0] {
	case inline:
		wire, err := base64.RawStdEncoding.DecodeString(payload[1:])
		if err != nil {
			b.ReceiveLost()
			return
		}
		b.Receive(wire)
	case byRow:
		id, err := strconv.ParseInt(payload[1:], 10, 64)
		if err != nil {
			b.ReceiveLost()
			return
		}
		ctx, cancel := context.WithTimeout(ctx, b.cfg.SendTimeout)
		defer cancel()
		var wire []byte
		if err := b.cfg.Pool.QueryRow(ctx, `SELECT body FROM `+b.cfg.Table+` WHERE id = $1`, id).Scan(&wire); err != nil {
			b.ReceiveLost() // deleted past Retention, or the database is unreachable
			return
		}
		b.Receive(wire)
	default:
		b.ReceiveLost()
	}
}

// The first byte of a NOTIFY payload: the event follows in base64, or the id of its row.
const (
	inline = 'i'
	byRow  = 'r'
)

// sender NOTIFYs the events, from the relay's one sending goroutine.
type sender struct {
	cfg     Config
	buf     []byte
	cleaned time.Time // when rows past Retention were last deleted
}

func (s *sender) send(ctx context.Context, wire []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.SendTimeout)
	defer cancel()
	if n := 1 + base64.RawStdEncoding.EncodedLen(len(wire)); n <= MaxInlineBytes {
		s.buf = append(s.buf[:0], inline)
		s.buf = base64.RawStdEncoding.AppendEncode(s.buf, wire)
		_, err := s.cfg.Pool.Exec(ctx, `SELECT pg_notify($1, $2)`, s.cfg.Channel, string(s.buf))
		return err
	}
	if now := time.Now(); now.Sub(s.cleaned) > s.cfg.Retention/4 {
		if _, err := s.cfg.Pool.Exec(ctx, `DELETE FROM `+s.cfg.Table+` WHERE at < now() - $1::interval`, s.cfg.Retention); err != nil {
			return err
		}
		s.cleaned = now
	}
	// One statement: the row and its notification commit together.
	_, err := s.cfg.Pool.Exec(ctx, `WITH r AS (INSERT INTO `+s.cfg.Table+` (body) VALUES ($2) RETURNING id)
		SELECT pg_notify($1, 'r' || id) FROM r`, s.cfg.Channel, wire)
	return err
}
