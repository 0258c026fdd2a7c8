package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// sseReader reads the data of server-sent events (WHATWG HTML §9.2): lines of "field: value",
// events ended by an empty line. Only data matters to MCP; event names, ids, retry and
// comments (keep-alives) are skipped, and so is a field line longer than the reader's 4 KiB
// buffer that is not data. One event's data is bounded by max bytes, and so is what the
// reader holds for it: a data line's value goes straight into the event's buffer, piece by
// piece, and the buffer never grows past max.
type sseReader struct {
	br   *bufio.Reader
	max  int
	data []byte
	// lastID and retry are the stream's last event id and reconnection delay in ms (-1:
	// none given), for resuming a legacy stream (SEP-1699).
	lastID string
	retry  int
}

func newSSEReader(r io.Reader, max int) *sseReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 4096)
	}
	return &sseReader{br: br, max: max, retry: -1}
}

// next returns the data of the next event that has any, borrowed until the next call; io.EOF
// at the end of the stream (a partial event at EOF is dropped, as the standard says).
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	has := false
	for {
		empty, err := s.line(&has)
		if err != nil {
			if err == io.EOF && has {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if empty && has {
			return s.data, nil
		}
	}
}

// take is next's result handed over: the caller owns it, and the reader starts its next
// event in a new buffer.
func (s *sseReader) take(data []byte) []byte {
	s.data = nil
	return data
}

// line reads one line (terminated by LF or CRLF; a bare CR terminator is used by no MCP
// server): a data line's value is appended to s.data (has set), other fields are applied.
// It reports whether the line was empty, the end of an event.
func (s *sseReader) line(has *bool) (bool, error) {
	l, err := s.br.ReadSlice('\n')
	if err == nil || errors.Is(err, bufio.ErrBufferFull) {
		if err == nil && (len(l) == 1 || len(l) == 2 && l[0] == '\r') {
			return true, nil
		}
	}
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		if err == io.EOF && len(l) > 0 {
			return false, io.ErrUnexpectedEOF
		}
		return false, err
	}
	full := errors.Is(err, bufio.ErrBufferFull)
	if !full {
		l = trimEOL(l)
	}
	field, value := l, []byte(nil)
	if i := bytes.IndexByte(l, ':'); i >= 0 {
		field, value = l[:i], l[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if string(field) != "data" {
		if full || len(l) > 0 && l[0] == ':' {
			return false, s.skipLine(err)
		}
		s.field(string(field), value)
		return false, nil
	}
	if *has {
		if err := s.appendData([]byte{'\n'}); err != nil {
			return false, err
		}
	}
	*has = true
	for full {
		if err := s.appendData(value); err != nil {
			return false, err
		}
		value, err = s.br.ReadSlice('\n')
		full = errors.Is(err, bufio.ErrBufferFull)
		if err != nil && !full {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return false, err
		}
	}
	return false, s.appendData(trimEOL(value))
}

// appendData adds b to the event's data, growing its buffer at most to max: it doubles up
// to half of max, then goes to max at once, so one event allocates under twice max in all.
func (s *sseReader) appendData(b []byte) error {
	n := len(s.data) + len(b)
	if n > s.max {
		return fmt.Errorf("%w: event data > %d bytes", ErrResponseTooLarge, s.max)
	}
	if n > cap(s.data) {
		size := max(2*cap(s.data), n, 512)
		if size > s.max/2 {
			size = s.max
		}
		grown := make([]byte, len(s.data), size)
		copy(grown, s.data)
		s.data = grown
	}
	s.data = append(s.data, b...)
	return nil
}

// field applies a field other than data.
func (s *sseReader) field(name string, value []byte) {
	switch name {
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.lastID = string(value)
		}
	case "retry":
		if n, err := strconv.Atoi(string(value)); err == nil && n >= 0 {
			s.retry = n
		}
	}
}

// skipLine reads past the rest of a line that is not data, holding none of it.
func (s *sseReader) skipLine(err error) error {
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = s.br.ReadSlice('\n')
	}
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
