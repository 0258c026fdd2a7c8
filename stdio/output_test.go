package stdio

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A batch is written in writes of about maxWriteBytes, cut at line boundaries; a line longer
// than that is written whole.
func TestOutputWritesWholeLines(t *testing.T) {
	short := strings.Repeat("s", 1000) + "\n"
	long := strings.Repeat("L", 3*maxWriteBytes) + "\n"
	batch := strings.Repeat(short, 200) + long + short
	var w recordingWriter
	o := newOutput(&w, time.Second, func() {})
	require.NoError(t, o.write([]byte(batch)))
	o.close()
	writes := w.writes()
	require.Equal(t, batch, strings.Join(writes, ""))
	for _, wr := range writes {
		require.True(t, strings.HasSuffix(wr, "\n"), "a write ends inside a line")
		if wr != long {
			require.LessOrEqual(t, len(wr), maxWriteBytes)
		}
	}
	require.Contains(t, writes, long)
	require.Greater(t, len(writes), 3)
}

// A Write that reports fewer bytes than it was given and no error breaks the io.Writer
// contract; it counts as a failed write.
func TestOutputShortWrite(t *testing.T) {
	o := newOutput(shortWriter{}, time.Second, func() {})
	defer o.close()
	require.Error(t, o.write([]byte("abc\n")))
}

type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return len(p) - 1, nil }

// wire makes any JSON text one 7-bit line.
func TestWire(t *testing.T) {
	var scratch []byte
	in := []byte("{\"a\":\"\u00e9\u2028\U0001F600\",\r\n \"b\":1}")
	out := wire(&scratch, in)
	require.Equal(t, `{"a":"\u00e9\u2028\ud83d\ude00",   "b":1}`, string(out))
	ascii := []byte(`{"a":1}`)
	require.Same(t, &ascii[0], &wire(&scratch, ascii)[0], "clean text is not copied")
}

func TestClean(t *testing.T) {
	for n := range 40 {
		b := []byte(strings.Repeat("a", n))
		require.True(t, clean(b))
		for i := range n {
			for _, c := range []byte{'\n', '\r', 0x80, 0xff, 0xc3} {
				b[i] = c
				require.False(t, clean(b), "%q", b)
				b[i] = 'a'
			}
			for _, c := range []byte{'\t', ' ', 0x7f, 0x0b, 0x0c, 0x0e, 0x1a, 0x2a, 0x0f} {
				b[i] = c
				require.True(t, clean(b), "%q", b)
				b[i] = 'a'
			}
		}
	}
}
