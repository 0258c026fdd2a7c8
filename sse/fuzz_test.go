package sse

import (
	"bufio"
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// normalize turns every SSE line ending (CRLF, lone CR) into LF: the data a
// client reads back for data.
func normalize(data []byte) string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// FuzzWriter writes a short sequence of events and keepalives and checks
// that the output parses back, per the SSE specification, to exactly those
// events: same count (no data can end an event or start one), same type,
// id and data (line endings normalised to LF), one comment per keepalive,
// nothing ignored and nothing left over. Every destination kind must
// produce the same bytes.
func FuzzWriter(f *testing.F) {
	for i, tc := range framingTests {
		f.Add("", "1", []byte(tc.data), []byte("b\r"), uint8(i*37))
	}
	f.Add("message", "", []byte(""), []byte(""), uint8(0xff))
	f.Add("update", "id\n", []byte("x\r\n\r\ndata: y\n\n"), []byte(": z\r"), uint8(0b10_01_11_00))
	f.Add("a\rb", "", []byte("a"), []byte("b"), uint8(0))
	f.Add("", "\x00", []byte(strings.Repeat("\r\n", 40)), []byte(strings.Repeat("x", 5000)), uint8(0b10_10_10_10))

	f.Fuzz(func(t *testing.T, event, id string, a, b []byte, ops uint8) {
		cfg := Config{Event: event}
		if event == "" {
			event = DefaultEvent
		}
		var (
			outs   []*bytes.Buffer
			writes []*Writer
		)
		// Small bufio sizes put buffer boundaries inside frames.
		for _, size := range []int{16 + int(ops%32), 4096} {
			var out bytes.Buffer
			w, err := NewWriter(bufio.NewWriterSize(&out, size), nil, cfg)
			if !validField(event) {
				require.ErrorIs(t, err, ErrInvalidConfig)
				return
			}
			require.NoError(t, err)
			outs, writes = append(outs, &out), append(writes, w)
		}
		var plain recorder
		w, err := NewWriter(&plain, nil, cfg)
		require.NoError(t, err)
		outs, writes = append(outs, &plain.Buffer), append(writes, w)

		var want parsedStream
		for i := range 5 {
			op := ops >> (2 * i) & 3
			if i == 4 {
				op = 1 // end with an event
			}
			for _, w := range writes {
				switch op {
				case 0:
					require.NoError(t, w.WriteEvent(a))
				case 1:
					require.NoError(t, w.WriteEvent(b))
				case 2:
					err := w.WriteEventID(id, a)
					if !validField(id) {
						require.ErrorIs(t, err, ErrInvalidID)
					} else {
						require.NoError(t, err)
					}
				case 3:
					require.NoError(t, w.WriteKeepAlive())
				}
			}
			switch op {
			case 0:
				want.Events = append(want.Events, parsedEvent{Type: event, Data: normalize(a)})
			case 1:
				want.Events = append(want.Events, parsedEvent{Type: event, Data: normalize(b)})
			case 2:
				if validField(id) {
					want.Events = append(want.Events, parsedEvent{Type: event, ID: id, HasID: true, Data: normalize(a)})
				}
			case 3:
				want.Comments = append(want.Comments, " keepalive")
			}
		}

		got := parseStream(outs[0].Bytes())
		assert.Equal(t, want, got)
		for _, out := range outs[1:] {
			assert.Equal(t, outs[0].String(), out.String())
		}
	})
}
