package client

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// readFull reads an n-byte Content-Length body, refusing one over max before reading it.
func readFull(br *bufio.Reader, n int64, max int) ([]byte, error) {
	if n > int64(max) {
		return nil, fmt.Errorf("%w: Content-Length %d > %d", ErrResponseTooLarge, n, max)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(br, b); err != nil {
		return nil, err
	}
	return b, nil
}

// readAllBounded reads r to EOF, failing as soon as it passes max bytes.
func readAllBounded(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(b) > max {
		return nil, fmt.Errorf("%w: body > %d bytes", ErrResponseTooLarge, max)
	}
	return b, nil
}

// chunkedReader decodes an HTTP/1.1 chunked body (RFC 9112 §7.1); trailers are skipped.
type chunkedReader struct {
	br   *bufio.Reader
	left int64 // bytes left in the current chunk
	done bool
	err  error
}

var errBadChunk = errors.New("malformed chunked body")

func (c *chunkedReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.done {
		return 0, io.EOF
	}
	if c.left == 0 {
		if c.err = c.nextChunk(); c.err != nil {
			return 0, c.err
		}
		if c.done {
			return 0, io.EOF
		}
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.br.Read(p)
	c.left -= int64(n)
	if c.left == 0 && err == nil {
		err = c.crlf()
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	c.err = err
	return n, err
}

// nextChunk reads a chunk-size line; size 0 ends the body after its trailer section.
func (c *chunkedReader) nextChunk() error {
	line, err := c.line()
	if err != nil {
		return err
	}
	var size int64
	digits := 0
	for _, ch := range line {
		var v byte
		switch {
		case ch >= '0' && ch <= '9':
			v = ch - '0'
		case ch >= 'a' && ch <= 'f':
			v = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			v = ch - 'A' + 10
		case ch == ';' || ch == ' ' || ch == '\t':
			goto sized // chunk extensions are ignored
		default:
			return errBadChunk
		}
		if digits++; digits > 15 {
			return errBadChunk
		}
		size = size<<4 | int64(v)
	}
sized:
	if digits == 0 {
		return errBadChunk
	}
	if size == 0 {
		for { // trailer section, ended by an empty line
			l, err := c.line()
			if err != nil {
				return err
			}
			if len(l) == 0 {
				c.done = true
				return nil
			}
		}
	}
	c.left = size
	return nil
}

// line reads one CRLF-terminated line of at most 4 KiB, without its terminator.
func (c *chunkedReader) line() ([]byte, error) {
	l, err := c.br.ReadSlice('\n')
	if err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errBadChunk
		}
		return nil, err
	}
	l = l[:len(l)-1]
	if len(l) > 0 && l[len(l)-1] == '\r' {
		l = l[:len(l)-1]
	}
	return l, nil
}

func (c *chunkedReader) crlf() error {
	l, err := c.line()
	if err != nil {
		return err
	}
	if len(l) != 0 {
		return errBadChunk
	}
	return nil
}
