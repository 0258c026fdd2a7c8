package bus

import (
	"encoding/binary"
	"errors"

	"github.com/fastmcp-go/fastmcp/fastmcp"
)

// MaxNameBytes bounds an event's URI and its Topic, each: a larger one is refused by Publish
// (counted as dropped) and by DecodeEvent.
const MaxNameBytes = 16 << 10

// MaxEncodedBytes bounds the wire form of one event: its Data ([fastmcp.MaxEventData]), URI
// and Topic at their bounds, and the header.
const MaxEncodedBytes = fastmcp.MaxEventData + 2*MaxNameBytes + headerBytes

// headerBytes bounds the header: the version and kind bytes and two length varints.
const headerBytes = 2 + 2*binary.MaxVarintLen32

// wireVersion is the first byte of every encoded event. A replica that reads another
// version refuses the event (a mixed deployment during an upgrade counts it as lost).
const wireVersion = 1

// ErrMalformed is DecodeEvent's error for bytes that are not one encoded event within the
// bounds.
var ErrMalformed = errors.New("bus: malformed event")

// Fits reports whether e is within the bounds every bus carries.
func Fits(e fastmcp.Event) bool {
	return len(e.Data) <= fastmcp.MaxEventData && len(e.URI) <= MaxNameBytes && len(e.Topic) <= MaxNameBytes
}

// AppendEvent appends the wire form of e to dst: the version, the kind, the URI and the
// Topic each after its length (uvarint), then the Data to the end. It is binary-safe.
func AppendEvent(dst []byte, e fastmcp.Event) []byte {
	dst = append(dst, wireVersion, byte(e.Kind))
	dst = binary.AppendUvarint(dst, uint64(len(e.URI)))
	dst = append(dst, e.URI...)
	dst = binary.AppendUvarint(dst, uint64(len(e.Topic)))
	dst = append(dst, e.Topic...)
	return append(dst, e.Data...)
}

// DecodeEvent reads one event written by AppendEvent. The URI and Topic are copies; Data
// shares b's memory (nil when empty), so b must not be reused while the event is in use.
func DecodeEvent(b []byte) (fastmcp.Event, error) {
	if len(b) < 2 || b[0] != wireVersion || b[1] == 0 {
		return fastmcp.Event{}, ErrMalformed
	}
	e := fastmcp.Event{Kind: fastmcp.EventKind(b[1])}
	rest := b[2:]
	var ok bool
	if e.URI, rest, ok = readName(rest); !ok {
		return fastmcp.Event{}, ErrMalformed
	}
	if e.Topic, rest, ok = readName(rest); !ok {
		return fastmcp.Event{}, ErrMalformed
	}
	if len(rest) > fastmcp.MaxEventData {
		return fastmcp.Event{}, ErrMalformed
	}
	if len(rest) > 0 {
		e.Data = rest
	}
	return e, nil
}

// readName reads a uvarint length and that many bytes, at most MaxNameBytes.
func readName(b []byte) (string, []byte, bool) {
	n, used := binary.Uvarint(b)
	// A length in more bytes than it needs (a last byte of 0) is refused: one event, one
	// encoding.
	if used <= 0 || (used > 1 && b[used-1] == 0) || n > MaxNameBytes || n > uint64(len(b)-used) {
		return "", nil, false
	}
	b = b[used:]
	return string(b[:n]), b[n:], true
}
