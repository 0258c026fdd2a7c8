package stdio

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
	"github.com/fastmcp-go/fastmcp/pool"
)

// Defaults used when a [Config] field is zero.
const (
	// DefaultWriteTimeout bounds one write to Output.
	DefaultWriteTimeout = 5 * time.Second
	// DefaultMaxLineBytes bounds one input line, newline included. It matches the HTTP
	// transport's body limit and decode.DefaultMaxMessageBytes.
	DefaultMaxLineBytes = 2_000_000
	// DefaultMaxSubscriptions bounds the subscriptions/listen streams open at once on one
	// connection.
	DefaultMaxSubscriptions = 32
)

// Config configures [Serve]. The zero value is ready to use: every zero field means its
// default, never "unlimited". Serve copies it; changing it afterwards has no effect.
type Config struct {
	// Input is read for messages, one JSON-RPC message per line. If nil, the process's
	// standard input is used. Serve never closes it.
	Input io.Reader

	// Output receives the responses and notifications, one per line. If nil, the process's
	// standard output is used, and while Serve runs anything else the process writes to file
	// descriptor 1 (os.Stdout, fmt.Print, C code) goes to standard error instead (see the
	// package documentation, "Standard output"). A supplied Output is used as it is and never
	// closed. If it has a SetWriteDeadline method that works (a net.Conn, a pipe from
	// os.Pipe), write deadlines are set through it; otherwise a watchdog timer bounds each
	// write, and Serve stops waiting for a write that overruns it.
	Output io.Writer

	// WriteTimeout bounds one write to Output. A write that takes longer, or fails, is
	// terminal: Serve cancels its work, closes its subscriptions, writes nothing more and
	// returns an error wrapping [ErrWriteTimeout] (or the write's error). If zero,
	// [DefaultWriteTimeout] is used. Negative values are invalid.
	WriteTimeout time.Duration

	// MaxLineBytes bounds one input line, counting its newline (and the carriage return
	// before it, if any). A longer line is answered with -32600 and a null id without being
	// decoded, the rest of it is discarded, and the next line is served. At most
	// MaxLineBytes of a line are held in memory. If zero, [DefaultMaxLineBytes] is used.
	// Negative values are invalid.
	MaxLineBytes int

	// RequestTimeout is the deadline of one request, counted from admission, so time in the
	// executor's queue counts. Past it the request is cancelled and answered with -32603
	// "Request execution timed out". If zero, the executor's default is used
	// (pool.DefaultTimeout, 30 s, for an executor Serve owns); [pool.NoTimeout] means none.
	// Other negative values are invalid. subscriptions/listen streams have no deadline.
	RequestTimeout time.Duration

	// Executor runs the requests. It may be shared with other transports and is left
	// running when Serve returns. If nil, Serve creates one from Pool and closes it before
	// returning.
	Executor *pool.Executor

	// Pool configures the executor Serve creates when Executor is nil. Its MaxSlots
	// defaults to MaxSubscriptions and its Logger to Logger. It is ignored when Executor is
	// set.
	Pool pool.Config

	// MaxSubscriptions bounds the subscriptions/listen streams open at once on this
	// connection. A listen request beyond it is answered with -32603 "Server subscription
	// capacity exhausted". Streams also take a slot of the executor's [pool.Slots], so
	// transports sharing an executor share its MaxSlots. If zero,
	// [DefaultMaxSubscriptions] is used. Negative values are invalid.
	MaxSubscriptions int

	// Logger receives terminal failures and read errors. If nil, slog.Default() is used
	// (whose default destination is standard error). Nothing logged reaches Output.
	Logger *slog.Logger
}

// settings are the resolved limits of one Serve call.
type settings struct {
	writeTimeout     time.Duration
	maxLineBytes     int
	requestTimeout   time.Duration
	maxSubscriptions int
	log              *slog.Logger
}

// resolve validates c and replaces zero values with the defaults.
func (c Config) resolve() (settings, error) {
	s := settings{
		writeTimeout:     c.WriteTimeout,
		maxLineBytes:     c.MaxLineBytes,
		requestTimeout:   c.RequestTimeout,
		maxSubscriptions: c.MaxSubscriptions,
		log:              c.Logger,
	}
	if err := cmp.Or(
		defaults.Resolve(&s.writeTimeout, DefaultWriteTimeout, "WriteTimeout", ErrInvalidConfig),
		defaults.Resolve(&s.maxLineBytes, DefaultMaxLineBytes, "MaxLineBytes", ErrInvalidConfig),
	); err != nil {
		return s, err
	}
	if s.requestTimeout < 0 && s.requestTimeout != pool.NoTimeout {
		return s, fmt.Errorf("%w: RequestTimeout %v is negative (use pool.NoTimeout for no deadline)",
			ErrInvalidConfig, c.RequestTimeout)
	}
	if err := defaults.Resolve(&s.maxSubscriptions, DefaultMaxSubscriptions, "MaxSubscriptions", ErrInvalidConfig); err != nil {
		return s, err
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	return s, nil
}

// poolConfig returns the configuration of an executor Serve owns.
func (c Config) poolConfig(s settings) pool.Config {
	p := c.Pool
	if p.MaxSlots == 0 {
		p.MaxSlots = s.maxSubscriptions
	}
	if p.Logger == nil {
		p.Logger = s.log
	}
	return p
}
