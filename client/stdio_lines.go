package client

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes bounds one line the stdio transport reads from the server, newline
// included: 16 MiB, the response-size bound HTTP applies to one body.
const DefaultMaxLineBytes = 16 << 20

// ErrLineTooLong is the error of a stdio call whose response line passed the line bound.
var ErrLineTooLong = errors.New("client: stdio line exceeds the maximum size")

// lineReader frames newline-delimited JSON-RPC. A line that passes max (its newline
// counted) is not held: its first bytes are kept so the id can still be read, the rest is
// discarded as it arrives.
type lineReader struct {
	r    *bufio.Reader
	max  int
	buf  []byte
	head []byte // the start of the last over-long line
}

// headBytes is how much of an over-long line is kept to find its id.
const headBytes = 4 << 10

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next non-blank line without its line ending. The slice is valid until the
// next call. An over-long line yields an error wrapping ErrLineTooLong; lr.head then holds
// its first bytes. Other errors are the reader's (io.EOF at the end of input; a last line
// without a newline is returned first).
func (lr *lineReader) next() ([]byte, error) {
	for {
		line, err := lr.line()
		if err != nil {
			return nil, err
		}
		if !blank(line) {
			return line, nil
		}
	}
}

func (lr *lineReader) line() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		if len(lr.buf)+len(chunk) > lr.max {
			return nil, lr.discard(chunk, err)
		}
		switch {
		case err == nil:
			if len(lr.buf) == 0 {
				return trimEOL(chunk), nil // the common case: no copy
			}
			lr.buf = append(lr.buf, chunk...)
			return trimEOL(lr.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			lr.buf = append(lr.buf, chunk...)
		case errors.Is(err, io.EOF) && len(lr.buf)+len(chunk) > 0:
			lr.buf = append(lr.buf, chunk...)
			return trimEOL(lr.buf), nil
		default:
			return nil, err
		}
	}
}

// discard keeps the head of an over-long line and reads past its end.
func (lr *lineReader) discard(chunk []byte, err error) error {
	lr.head = append(lr.head[:0], lr.buf[:min(len(lr.buf), headBytes)]...)
	if n := headBytes - len(lr.head); n > 0 {
		lr.head = append(lr.head, chunk[:min(len(chunk), n)]...)
	}
	lr.buf = lr.buf[:0]
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = lr.r.ReadSlice('\n')
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return fmt.Errorf("%w (%d bytes)", ErrLineTooLong, lr.max)
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
