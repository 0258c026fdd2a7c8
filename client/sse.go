package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sseReader reads the data of server-sent events (WHATWG HTML §9.2): lines of "field: value",
// events ended by an empty line. Only data matters to MCP; event names, ids, retry and
// comments (keep-alives) are skipped. One event's data is bounded by max bytes.
type sseReader struct {
	br   *bufio.Reader
	max  int
	data []byte
	long []byte // a line longer than the reader's buffer, assembled
}

func newSSEReader(r io.Reader, max int) *sseReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 4096)
	}
	return &sseReader{br: br, max: max}
}

// next returns the data of the next event that has any, borrowed until the next call; io.EOF
// at the end of the stream (a partial event at EOF is dropped, as the standard says).
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	has := false
	for {
		line, err := s.line()
		if err != nil {
			if err == io.EOF && has {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) == 0 {
			if has {
				return s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(field) != "data" {
			continue
		}
		if has {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > s.max {
			return nil, fmt.Errorf("%w: event data > %d bytes", ErrResponseTooLarge, s.max)
		}
		s.data = append(s.data, value...)
		has = true
	}
}

// line returns one line without its terminator (LF, CRLF or CR-less LF only: a bare CR
// terminator is not used by any MCP server), bounded by max+64 bytes.
func (s *sseReader) line() ([]byte, error) {
	l, err := s.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.long = append(s.long[:0], l...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(s.long) > s.max+64 {
				return nil, fmt.Errorf("%w: event line > %d bytes", ErrResponseTooLarge, s.max)
			}
			l, err = s.br.ReadSlice('\n')
			s.long = append(s.long, l...)
		}
		l = s.long
	}
	if err != nil {
		if err == io.EOF && len(l) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	l = l[:len(l)-1]
	if len(l) > 0 && l[len(l)-1] == '\r' {
		l = l[:len(l)-1]
	}
	return l, nil
}
