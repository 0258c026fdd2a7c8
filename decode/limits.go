package decode

import (
	"cmp"
	"errors"

	"github.com/fastmcp-go/fastmcp/internal/defaults"
)

// Defaults for [Limits]. Zero fields mean these values.
const (
	// DefaultMaxMessageBytes bounds one JSON-RPC message (an HTTP body or a stdio line).
	DefaultMaxMessageBytes = 2_000_000
	// DefaultMaxDepth bounds the nesting of arrays and objects; the envelope object is level 1.
	// 128 leaves room for deeply structured tool arguments while keeping the recursive scan's
	// stack small.
	DefaultMaxDepth = 128
)

// Fixed bounds of the protocol; they are not configurable because peers rely on them.
const (
	// MaxIntegerDigits is the longest integer literal accepted anywhere in a message, sign not
	// counted (the integer part of any number). Longer literals are a parse error.
	MaxIntegerDigits = 64
	// MaxIDBytes is the longest string request id (and string progressToken), in bytes once
	// unescaped.
	MaxIDBytes = 256
)

// ErrInvalidConfig is wrapped by the error [New] returns for invalid [Limits].
var ErrInvalidConfig = errors.New("decode: invalid limits")

// Limits bounds what a [Decoder] accepts. The zero value selects every default.
type Limits struct {
	// MaxMessageBytes limits the size of one message. Larger messages fail with
	// CodeInvalidRequest "Invalid Request: message exceeds the maximum size" (transports
	// usually refuse them earlier: HTTP 413, a stdio -32600 line). If zero,
	// [DefaultMaxMessageBytes] is used. Negative values are invalid.
	MaxMessageBytes int
	// MaxDepth limits how deeply arrays and objects nest. Deeper messages fail with
	// CodeParseError "Parse error: nesting exceeds the maximum depth". If zero,
	// [DefaultMaxDepth] is used. Negative values are invalid.
	MaxDepth int
}

// Decoder decodes JSON-RPC messages under fixed limits. It holds no per-message state: one
// Decoder may be used from many goroutines at once.
type Decoder struct {
	maxMessageBytes int
	maxDepth        int
}

// New returns a Decoder with the given limits, defaults filled in.
func New(l Limits) (*Decoder, error) {
	if err := cmp.Or(
		defaults.Resolve(&l.MaxMessageBytes, DefaultMaxMessageBytes, "MaxMessageBytes", ErrInvalidConfig),
		defaults.Resolve(&l.MaxDepth, DefaultMaxDepth, "MaxDepth", ErrInvalidConfig),
	); err != nil {
		return nil, err
	}
	return &Decoder{maxMessageBytes: l.MaxMessageBytes, maxDepth: l.MaxDepth}, nil
}

// Limits returns the limits in force, defaults resolved.
func (d *Decoder) Limits() Limits {
	return Limits{MaxMessageBytes: d.maxMessageBytes, MaxDepth: d.maxDepth}
}

var defaultDecoder, _ = New(Limits{})

// Decode decodes src into m with the default limits. See [Decoder.Decode].
func Decode(m *Message, src []byte) error { return defaultDecoder.Decode(m, src) }
