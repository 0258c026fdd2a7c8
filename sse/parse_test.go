package sse

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

// parsedEvent is one event dispatched by parseStream.
type parsedEvent struct {
	Type  string // value of the "event" field; "" if absent (clients then use "message")
	ID    string // value of this event's "id" field; "" if absent
	HasID bool   // an "id" field without NUL was seen in this event
	Data  string // "data" field values joined with "\n"
}

// parsedStream is what parseStream found in a stream.
type parsedStream struct {
	Events   []parsedEvent
	Comments []string // text after ':' of each comment line
	Ignored  []string // lines whose field a client ignores ("retry" included)
	Rest     bool     // the stream ended inside an event (fields seen, no blank line)
}

// parseStream parses a complete text/event-stream body the way the WHATWG
// HTML specification ("Parsing an event stream", "Interpreting an event
// stream") tells clients to, working on bytes instead of decoded text:
//
//   - a leading U+FEFF is skipped;
//   - lines end at CRLF, LF or a lone CR (a CR at the end counts as a line
//     end, as it does at the end of a stream);
//   - an empty line dispatches the event, unless no "data" field was seen;
//   - a line starting with ':' is a comment;
//   - "name:value" has one leading space removed from value; a line
//     without ':' is a field with an empty value;
//   - "data" appends value and LF, and the last LF is removed at dispatch;
//   - "id" is ignored if its value contains NUL;
//   - a final event not followed by a blank line is discarded.
//
// Unlike a browser, it reports the id of each event only (not the last id
// carried over from earlier events).
func parseStream(b []byte) parsedStream {
	var (
		out     parsedStream
		data    []byte
		hasData bool
		cur     parsedEvent
		pending bool // any field seen since the last dispatch
	)
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 { // an unterminated last line is never processed
			pending = true
			break
		}
		line := b[:i]
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			b = b[i+2:]
		} else {
			b = b[i+1:]
		}
		switch {
		case len(line) == 0:
			if hasData {
				cur.Data = string(bytes.TrimSuffix(data, []byte("\n")))
				out.Events = append(out.Events, cur)
			}
			cur, data, hasData, pending = parsedEvent{}, data[:0], false, false
			continue
		case line[0] == ':':
			out.Comments = append(out.Comments, string(line[1:]))
			continue
		}
		pending = true
		field, value := line, []byte(nil)
		if j := bytes.IndexByte(line, ':'); j >= 0 {
			field, value = line[:j], line[j+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			cur.Type = string(value)
		case "data":
			data = append(append(data, value...), '\n')
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				cur.ID, cur.HasID = string(value), true
			}
		default:
			out.Ignored = append(out.Ignored, string(line))
		}
	}
	out.Rest = pending
	return out
}

func TestParseStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want parsedStream
	}{
		{name: "empty", in: ""},
		{
			name: "one event",
			in:   "event: message\ndata: {}\n\n",
			want: parsedStream{Events: []parsedEvent{{Type: "message", Data: "{}"}}},
		},
		{
			name: "CRLF and CR line endings",
			in:   "data: a\r\ndata: b\rdata:c\r\n\r",
			want: parsedStream{Events: []parsedEvent{{Data: "a\nb\nc"}}},
		},
		{
			name: "only one leading space is removed",
			in:   "data:  x\ndata:\ndata\n\n",
			want: parsedStream{Events: []parsedEvent{{Data: " x\n\n"}}},
		},
		{
			name: "no data means no event",
			in:   "event: x\n\ndata: y\n\n",
			want: parsedStream{Events: []parsedEvent{{Data: "y"}}},
		},
		{
			name: "comments and ignored fields",
			in:   ": keepalive\n\nretry: 10\nfoo\ndata: z\n\n",
			want: parsedStream{
				Events:   []parsedEvent{{Data: "z"}},
				Comments: []string{" keepalive"},
				Ignored:  []string{"retry: 10", "foo"},
			},
		},
		{
			name: "id with NUL is ignored",
			in:   "id: 1\ndata: a\n\nid: a\x00b\ndata: b\n\n",
			want: parsedStream{Events: []parsedEvent{{ID: "1", HasID: true, Data: "a"}, {Data: "b"}}},
		},
		{
			name: "unterminated event is discarded",
			in:   "data: a\n\ndata: b\n",
			want: parsedStream{Events: []parsedEvent{{Data: "a"}}, Rest: true},
		},
		{
			name: "unterminated line",
			in:   "data: a",
			want: parsedStream{Rest: true},
		},
		{
			name: "byte order mark",
			in:   "\xef\xbb\xbfdata: a\n\n",
			want: parsedStream{Events: []parsedEvent{{Data: "a"}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, parseStream([]byte(tc.in)))
		})
	}
}
