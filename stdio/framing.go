package stdio

import (
	"bufio"
	"errors"
	"io"
)

// readBufferBytes is the size of the chunks input is read in. A line longer than a chunk is
// assembled in its job's buffer, which never grows past the line limit.
const readBufferBytes = 64 << 10

// utf8BOM is the byte order mark a client may send before its first message.
var utf8BOM = [3]byte{0xEF, 0xBB, 0xBF}

// lineReader frames input into lines, the way the package documentation describes under
// "Framing": a leading byte order mark is dropped, lines end at LF, one CR before the LF is
// dropped, blank lines (JSON whitespace only) are skipped, a line over the limit (newline
// counted) is reported once and the rest of it discarded, and a last line without a newline
// is delivered at end of input if it is within the limit. It holds one fixed read buffer and
// at most max bytes of a line.
type lineReader struct {
	br      *bufio.Reader
	max     int
	started bool  // the byte order mark check is done
	skip    bool  // the rest of an over-long line is still to be discarded
	err     error // sticky: end of input or a read error
}

func newLineReader(r io.Reader, max int) *lineReader {
	return newLineReaderSize(r, max, readBufferBytes)
}

// newLineReaderSize is newLineReader with a read buffer of size bytes (tests use small ones
// to exercise lines that span chunks).
func newLineReaderSize(r io.Reader, max, size int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, size), max: max}
}

// next reads the next non-blank line into dst's storage and returns it without its line
// ending, or tooLong for a line over the limit (the caller answers it; its rest is discarded
// by the next call). At the end of input it returns io.EOF; after a read error, that error.
// dst may grow up to the limit; the returned line shares its storage.
func (r *lineReader) next(dst []byte) (line []byte, tooLong bool, err error) {
	if !r.started {
		r.started = true
		r.dropBOM()
	}
	for {
		if r.err != nil {
			return dst[:0], false, r.err
		}
		if r.skip {
			r.discardLine()
			continue
		}
		line, tooLong = r.readLine(dst[:0])
		if tooLong {
			return line, true, nil
		}
		if line == nil { // nothing before the end of input or an error
			continue
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if !blank(line) {
			return line, false, nil
		}
		dst = line
	}
}

// dropBOM discards a byte order mark at the start of input. It peeks one byte first, so a
// client that sends a one-byte line and waits is not kept waiting.
func (r *lineReader) dropBOM() {
	b, err := r.br.Peek(1)
	if len(b) == 0 || b[0] != utf8BOM[0] {
		if len(b) == 0 {
			r.err = err
		}
		return
	}
	if b, _ = r.br.Peek(3); len(b) == 3 && [3]byte(b) == utf8BOM {
		_, _ = r.br.Discard(3)
	}
}

// readLine reads one line into dst, without its LF. It returns tooLong once the line passes
// the limit, and a nil line (with r.err set) when input ended or failed before any byte of a
// line.
func (r *lineReader) readLine(dst []byte) (line []byte, tooLong bool) {
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(dst)+len(chunk) > r.max { // counts the newline when chunk has it
			// The rest of the line is still to come unless chunk ended it (or input ended).
			r.skip = errors.Is(err, bufio.ErrBufferFull)
			if err != nil && !r.skip {
				r.err = err
			}
			return dst[:0], true
		}
		switch {
		case err == nil:
			return r.appendBounded(dst, chunk[:len(chunk)-1]), false
		case errors.Is(err, bufio.ErrBufferFull):
			dst = r.appendBounded(dst, chunk)
			continue
		}
		r.err = err
		if errors.Is(err, io.EOF) && len(dst)+len(chunk) > 0 {
			return r.appendBounded(dst, chunk), false // a last line without a newline
		}
		return nil, false // a partial line cut by a read error is dropped
	}
}

// discardLine discards input up to and including the next LF.
func (r *lineReader) discardLine() {
	for {
		_, err := r.br.ReadSlice('\n')
		switch {
		case err == nil:
			r.skip = false
			return
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		r.skip = false
		r.err = err
		return
	}
}

// appendBounded appends b to dst, growing dst to at most the line limit (the caller has
// checked that the result fits).
func (r *lineReader) appendBounded(dst, b []byte) []byte {
	if need := len(dst) + len(b); need > cap(dst) {
		c := min(max(2*cap(dst), need, 512), r.max)
		grown := make([]byte, len(dst), c)
		copy(grown, dst)
		dst = grown
	}
	return append(dst, b...)
}

// blank reports whether line holds nothing but JSON whitespace.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
