package stdio

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// frame is one thing the framer yields: a line, or tooLong.
type frame struct {
	line    string
	tooLong bool
}

// refFrames is the reference splitter the framer must agree with, written the obvious way
// over the whole input: drop a leading byte order mark, split at LF, measure each line with
// its LF (a last line without one, without), report lines over max, drop one CR before the
// LF, skip blank lines.
func refFrames(in []byte, max int) []frame {
	in = bytes.TrimPrefix(in, utf8BOM[:])
	var out []frame
	for len(in) > 0 {
		var line []byte
		size := 0
		if i := bytes.IndexByte(in, '\n'); i >= 0 {
			line, size, in = in[:i], i+1, in[i+1:]
		} else {
			line, size, in = in, len(in), nil
		}
		if size > max {
			out = append(out, frame{tooLong: true})
			continue
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(bytes.Trim(line, " \t\r")) == 0 {
			continue
		}
		out = append(out, frame{line: string(line)})
	}
	return out
}

// readFrames runs the framer over r until it returns an error.
func readFrames(t testing.TB, r io.Reader, max int) ([]frame, error) {
	t.Helper()
	return readFramesSize(t, r, max, readBufferBytes)
}

// readFramesSize is readFrames with a read buffer of size bytes.
func readFramesSize(t testing.TB, r io.Reader, max, size int) ([]frame, error) {
	t.Helper()
	lr := newLineReaderSize(r, max, size)
	var out []frame
	var buf []byte
	for {
		line, tooLong, err := lr.next(buf)
		if err != nil {
			return out, err
		}
		require.LessOrEqual(t, cap(line), max, "a line buffer grew past the limit")
		out = append(out, frame{line: string(line), tooLong: tooLong})
		if tooLong {
			out[len(out)-1].line = ""
		}
		buf = line
	}
}

func TestFraming(t *testing.T) {
	cases := []struct {
		name string
		in   string
		max  int
		want []frame
	}{
		{"empty", "", 10, nil},
		{"one line", "abc\n", 10, []frame{{line: "abc"}}},
		{"crlf", "abc\r\ndef\r\n", 10, []frame{{line: "abc"}, {line: "def"}}},
		{"only one cr dropped", "abc\r\r\n", 10, []frame{{line: "abc\r"}}},
		{"bom", "\ufeffabc\n", 10, []frame{{line: "abc"}}},
		{"bom only at the start", "a\n\ufeffb\n", 10, []frame{{line: "a"}, {line: "\ufeffb"}}},
		{"partial bom", "\xef\xbbx\n", 10, []frame{{line: "\xef\xbbx"}}},
		{"blank lines", "\n\r\n \t \n\nx\n\n", 10, []frame{{line: "x"}}},
		{"last line without newline", "a\nbc", 10, []frame{{line: "a"}, {line: "bc"}}},
		{"limit counts the newline", "abcd\nabc\n", 4, []frame{{tooLong: true}, {line: "abc"}}},
		{"last line at the limit", "abcd", 4, []frame{{line: "abcd"}}},
		{"last line over the limit", "abcde", 4, []frame{{tooLong: true}}},
		{"cr counts", "abc\r\n", 4, []frame{{tooLong: true}}},
		{"over-long line reported once", strings.Repeat("x", 100) + "\nok\n", 8, []frame{{tooLong: true}, {line: "ok"}}},
		{"two over-long lines", strings.Repeat("x", 10) + "\n" + strings.Repeat("y", 10) + "\n", 8, []frame{{tooLong: true}, {tooLong: true}}},
		{"over-long blank line", strings.Repeat(" ", 10) + "\nok\n", 8, []frame{{tooLong: true}, {line: "ok"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, refFrames([]byte(tc.in), tc.max), "reference")
			for _, size := range []int{16, readBufferBytes} {
				for _, r := range []io.Reader{
					strings.NewReader(tc.in),
					iotest.OneByteReader(strings.NewReader(tc.in)),
					iotest.DataErrReader(strings.NewReader(tc.in)),
				} {
					got, err := readFramesSize(t, r, tc.max, size)
					require.ErrorIs(t, err, io.EOF)
					require.Equal(t, tc.want, got)
				}
			}
		})
	}
}

// A line longer than the read buffer is assembled across chunks, up to the limit and no
// further.
func TestFramingLongLines(t *testing.T) {
	long := strings.Repeat("z", 3*readBufferBytes+17)
	got, err := readFrames(t, strings.NewReader(long+"\n"+long), len(long)+1)
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, []frame{{line: long}, {line: long}}, got)

	got, err = readFrames(t, strings.NewReader(long+"\nok\n"+long), len(long))
	require.ErrorIs(t, err, io.EOF)
	require.Equal(t, []frame{{tooLong: true}, {line: "ok"}, {line: long}}, got)
}

// A read error ends framing with that error; the partial line before it is dropped.
func TestFramingReadError(t *testing.T) {
	boom := errors.New("boom")
	got, err := readFrames(t, io.MultiReader(strings.NewReader("a\npartial"), errReader{boom}), 100)
	require.ErrorIs(t, err, boom)
	require.Equal(t, []frame{{line: "a"}}, got)
	// The error is sticky.
	lr := newLineReader(errReader{boom}, 10)
	for range 3 {
		_, _, err := lr.next(nil)
		require.ErrorIs(t, err, boom)
	}
}
