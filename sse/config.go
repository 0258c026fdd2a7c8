package sse

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults used for zero [Config] fields.
const (
	// DefaultEvent is the event type of every event: the value clients of
	// the MCP reference implementations see.
	DefaultEvent = "message"

	// DefaultKeepAliveInterval is how long [Writer.KeepAlive] lets a stream sit
	// idle before it writes a keepalive comment. It matches the official MCP
	// SDKs.
	DefaultKeepAliveInterval = 15 * time.Second

	// DefaultWriteTimeout bounds the write of one event or comment,
	// including its flush.
	DefaultWriteTimeout = 5 * time.Second
)

// Config configures a [Writer]. The zero value is valid and selects every
// default. A Config is copied by [NewWriter]; changing it afterwards has no
// effect on existing Writers.
type Config struct {
	// Event is the event type written in the "event:" line of every event.
	// If empty, [DefaultEvent] is used. It must not contain CR, LF or NUL.
	Event string

	// KeepAliveInterval is how long [Writer.KeepAlive] lets the stream sit idle
	// (no event and no comment written) before it writes a ": keepalive"
	// comment. A failed keepalive is how a writer learns that the client
	// has gone. If zero, [DefaultKeepAliveInterval] is used. Negative values
	// are invalid.
	KeepAliveInterval time.Duration

	// WriteTimeout bounds the write of one event or comment, flush
	// included: before each frame the Writer sets a write deadline of now
	// plus WriteTimeout on its [DeadlineSetter]. Without a DeadlineSetter
	// (for example a *bufio.Writer handed out by an HTTP server's body
	// stream) it cannot be enforced and a write blocks as long as the
	// underlying writer does. If zero, [DefaultWriteTimeout] is used.
	// Negative values are invalid.
	WriteTimeout time.Duration
}

// Validate reports whether c is valid. The error wraps [ErrInvalidConfig].
// A transport can call it once at start-up so that a bad configuration is
// reported there rather than on the first stream.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolve returns c with defaults applied, or an error wrapping
// ErrInvalidConfig.
func (c Config) resolve() (Config, error) {
	if c.Event == "" {
		c.Event = DefaultEvent
	}
	if !validField(c.Event) {
		return c, fmt.Errorf("%w: Event %q contains CR, LF or NUL", ErrInvalidConfig, c.Event)
	}
	err := cmp.Or(
		defaults.Resolve(&c.KeepAliveInterval, DefaultKeepAliveInterval, "KeepAliveInterval", ErrInvalidConfig),
		defaults.Resolve(&c.WriteTimeout, DefaultWriteTimeout, "WriteTimeout", ErrInvalidConfig),
	)
	return c, err
}

// validField reports whether s can be the value of an "event:" or "id:"
// line: a CR or LF would end the line early (and could start a new field),
// and clients ignore an id that contains NUL.
func validField(s string) bool {
	return !strings.ContainsAny(s, "\r\n\x00")
}
